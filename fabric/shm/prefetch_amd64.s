//go:build linux

#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n int)
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE done
loop:
	// PREFETCHW (AX): the Go assembler has no mnemonic for it.
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08
	ADDQ $64, AX
	DECQ CX
	JNZ loop
done:
	RET

// func prefetchWSupported() bool
TEXT ·prefetchWSupported(SB), NOSPLIT, $0-1
	MOVL $0x80000001, AX
	XORL CX, CX
	CPUID
	SHRL $8, CX // ECX bit 8: PRFCHW
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET
