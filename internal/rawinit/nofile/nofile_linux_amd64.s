#include "textflag.h"

// func prlimitNofile(old *[2]uint64) (errno uintptr)
//
// prlimit64(0, RLIMIT_NOFILE, NULL, old): raw, since this package imports
// nothing (not even syscall, which it must run before).
TEXT ·prlimitNofile(SB),NOSPLIT,$0-16
	MOVQ	$0, DI
	MOVQ	$7, SI // RLIMIT_NOFILE
	MOVQ	$0, DX
	MOVQ	old+0(FP), R10
	MOVQ	$302, AX // SYS_prlimit64
	SYSCALL
	MOVQ	AX, errno+8(FP)
	RET
