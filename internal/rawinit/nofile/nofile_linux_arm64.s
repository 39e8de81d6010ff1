#include "textflag.h"

// func prlimitNofile(old *[2]uint64) (errno uintptr)
//
// prlimit64(0, RLIMIT_NOFILE, NULL, old): raw, since this package imports
// nothing (not even syscall, which it must run before).
TEXT ·prlimitNofile(SB),NOSPLIT,$0-16
	MOVD	$0, R0
	MOVD	$7, R1 // RLIMIT_NOFILE
	MOVD	$0, R2
	MOVD	old+0(FP), R3
	MOVD	$261, R8 // SYS_prlimit64
	SVC
	MOVD	R0, errno+8(FP)
	RET
