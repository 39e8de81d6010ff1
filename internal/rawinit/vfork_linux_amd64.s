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

// func cloneVM(args *cloneArgs, size uintptr, m *machine) (pid, errno uintptr)
//
// clone3(args, size) with CLONE_VM and a stack of the init's own in args:
// the child starts on that stack and runs initMain(m); the parent returns
// from here at once, on its own stack, which the child never touched.
TEXT ·cloneVM(SB),NOSPLIT|NOFRAME,$0-40
	MOVQ	args+0(FP), DI
	MOVQ	size+8(FP), SI
	MOVQ	m+16(FP), R12
	MOVL	$435, AX // SYS_clone3
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	NEGQ	AX
	MOVQ	$0, pid+24(FP)
	MOVQ	AX, errno+32(FP)
	RET
ok:
	MOVQ	AX, pid+24(FP)
	MOVQ	$0, errno+32(FP)
	RET
child:
	// An indirect call: the init runs on a stack of its own, not within
	// the caller's nosplit budget, which the linker would count from here.
	SUBQ	$32, SP
	MOVQ	R12, 0(SP)
	MOVQ	$·initMain(SB), AX
	CALL	AX
	MOVL	$231, AX // SYS_exit_group
	MOVQ	$125, DI
	SYSCALL
	INT	$3
