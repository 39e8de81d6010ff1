#include "textflag.h"

// func vforkPayload(flags, stack, ptid uintptr, m *machine, pc uintptr) (pid, errno uintptr)
//
// clone(flags, stack, ptid, 0, 0) with CLONE_VM|CLONE_VFORK: the child
// starts on the stack given, which it owns, and runs payloadMain(m, pc);
// the parent, suspended until the child has executed or exited, returns
// from here on its own stack, which the child never touched.
TEXT ·vforkPayload(SB),NOSPLIT|NOFRAME,$0-56
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	MOVQ	ptid+16(FP), DX
	MOVQ	$0, R10
	MOVQ	$0, R8
	MOVQ	m+24(FP), R12
	MOVQ	pc+32(FP), R13
	MOVL	$56, AX // SYS_clone
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	NEGQ	AX
	MOVQ	$0, pid+40(FP)
	MOVQ	AX, errno+48(FP)
	RET
ok:
	MOVQ	AX, pid+40(FP)
	MOVQ	$0, errno+48(FP)
	RET
child:
	SUBQ	$32, SP
	MOVQ	R12, 0(SP)
	MOVQ	R13, 8(SP)
	CALL	·payloadMain(SB)
	MOVL	$231, AX // SYS_exit_group
	MOVQ	$127, DI
	SYSCALL
	INT	$3
