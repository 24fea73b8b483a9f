#include "textflag.h"

// EXPCONSTS broadcasts the constants (consts in vexp_amd64.go, at DX)
// into Y15 … Y6: log₂e, ln2's upper and lower parts, 1/16, 2, 1, −700,
// 700, −746, and the exponent bias 1023 as a 64-bit integer. Uses BX.
#define EXPCONSTS \
	VBROADCASTSD 0(DX), Y15; \
	VBROADCASTSD 8(DX), Y14; \
	VBROADCASTSD 16(DX), Y13; \
	VBROADCASTSD 24(DX), Y12; \
	VBROADCASTSD 96(DX), Y11; \
	VBROADCASTSD 88(DX), Y10; \
	VBROADCASTSD 104(DX), Y9; \
	VBROADCASTSD 112(DX), Y8; \
	VBROADCASTSD 120(DX), Y7; \
	MOVQ $0x3FF, BX; \
	VMOVQ BX, X6; \
	VPBROADCASTQ X6, Y6

// EXPY0(fail) replaces the four lanes of Y0 with e^{Y0}: math/exp_amd64.s's
// FMA path (doc.go), its operations in its order. First, which lanes it
// can take: −700 ≤ x ≤ 700 (ordered compares: NaN fails) or x < −746
// (the result is 0); if any lane is neither it jumps to fail with Y0 as
// it was. Then k = round(x·log₂e) (MXCSR's rounding, as CVTSD2SL), as
// int32 in X2 and back as a float in Y1; r = x − k·ln2u − k·ln2l, each a
// fused multiply-add, then r/16; the Taylor polynomial of e^r − 1 in
// Horner form with fused multiply-adds (p = p·r + c, Y3); r ← r·p, then
// four times (r + 2)·r, the last fused with +1 (e^{16r} from e^r); the
// scaling by 2^k, whose bits are (k + 1023) << 52; and 0 in the lanes
// below −746. Uses BX and Y1 … Y5; the constants are EXPCONSTS's.
#define EXPY0(fail) \
	VCMPPD $0x1D, Y9, Y0, Y1; \
	VCMPPD $0x12, Y8, Y0, Y2; \
	VANDPD Y2, Y1, Y1; \
	VCMPPD $0x11, Y7, Y0, Y5; \
	VORPD  Y5, Y1, Y1; \
	VMOVMSKPD Y1, BX; \
	CMPQ BX, $15; \
	JNE  fail; \
	VMULPD Y15, Y0, Y1; \
	VCVTPD2DQY Y1, X2; \
	VCVTDQ2PD X2, Y1; \
	VFNMADD231PD Y14, Y1, Y0; \
	VFNMADD231PD Y13, Y1, Y0; \
	VMULPD Y12, Y0, Y0; \
	VBROADCASTSD 32(DX), Y3; \
	VBROADCASTSD 40(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VBROADCASTSD 48(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VBROADCASTSD 56(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VBROADCASTSD 64(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VBROADCASTSD 72(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VBROADCASTSD 80(DX), Y4; \
	VFMADD213PD Y4, Y0, Y3; \
	VFMADD213PD Y10, Y0, Y3; \
	VMULPD Y3, Y0, Y0; \
	VADDPD Y11, Y0, Y3; \
	VMULPD Y3, Y0, Y0; \
	VADDPD Y11, Y0, Y3; \
	VMULPD Y3, Y0, Y0; \
	VADDPD Y11, Y0, Y3; \
	VMULPD Y3, Y0, Y0; \
	VADDPD Y11, Y0, Y3; \
	VFMADD213PD Y10, Y3, Y0; \
	VPMOVSXDQ X2, Y4; \
	VPADDQ Y6, Y4, Y4; \
	VPSLLQ $52, Y4, Y4; \
	VMULPD Y4, Y0, Y0; \
	VANDNPD Y0, Y5, Y0

// func expVectorAsm(x []float64, c *float64) int
//
// e^x in place, four lanes at a time; returns the lanes done (a multiple
// of four), stopping before a block EXPY0 cannot take.
TEXT ·expVectorAsm(SB), NOSPLIT, $0-40
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ c+24(FP), DX
	XORQ AX, AX                 // lanes done
	EXPCONSTS

loop:
	CMPQ CX, $4
	JL   done
	VMOVUPD (SI), Y0
	EXPY0(done)
	VMOVUPD Y0, (SI)
	ADDQ $32, SI
	ADDQ $4, AX
	SUBQ $4, CX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET

// func seRow2Asm(dst, pts []float64, c *float64, p *[4]float64) int
//
// The isotropic SE kernel's row in the plane, four points at a time:
// dst[j] = v·e^{−((x0−p0)²+(x1−p1)²)/ℓ²₂}, p = (x0, x1, ℓ²₂ = 2ℓ², v),
// points back to back in pts, every operation the one kernel.RowFlat's
// Go performs. Returns the points done (a multiple of four): it stops
// before a block whose exponential it cannot take, with nothing of that
// block written.
TEXT ·seRow2Asm(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), SI
	MOVQ dst_len+8(FP), CX
	MOVQ pts_base+24(FP), DI
	MOVQ c+48(FP), DX
	MOVQ p+56(FP), R8
	XORQ AX, AX                 // points done
	EXPCONSTS

rloop:
	CMPQ CX, $4
	JL   rdone
	// Four points: (p0, p1) pairs, split into p0s and p1s in order.
	VMOVUPD (DI), Y1            // p0₀ p1₀ p0₁ p1₁
	VMOVUPD 32(DI), Y2          // p0₂ p1₂ p0₃ p1₃
	VUNPCKLPD Y2, Y1, Y3        // p0₀ p0₂ p0₁ p0₃
	VUNPCKHPD Y2, Y1, Y4        // p1₀ p1₂ p1₁ p1₃
	VPERMPD $0xD8, Y3, Y3       // p0₀ p0₁ p0₂ p0₃
	VPERMPD $0xD8, Y4, Y4
	// s = a·a + b·b for a = x0 − p0, b = x1 − p1; then −s / ℓ²₂.
	VBROADCASTSD 0(R8), Y1
	VSUBPD Y3, Y1, Y3
	VBROADCASTSD 8(R8), Y1
	VSUBPD Y4, Y1, Y4
	VMULPD Y3, Y3, Y3
	VMULPD Y4, Y4, Y4
	VADDPD Y4, Y3, Y0
	MOVQ $0x8000000000000000, BX
	VMOVQ BX, X1
	VBROADCASTSD X1, Y1
	VXORPD Y1, Y0, Y0
	VBROADCASTSD 16(R8), Y1
	VDIVPD Y1, Y0, Y0
	EXPY0(rdone)
	// ·v
	VBROADCASTSD 24(R8), Y1
	VMULPD Y1, Y0, Y0
	VMOVUPD Y0, (SI)
	ADDQ $32, SI
	ADDQ $64, DI
	ADDQ $4, AX
	SUBQ $4, CX
	JMP  rloop

rdone:
	VZEROUPPER
	MOVQ AX, ret+64(FP)
	RET
