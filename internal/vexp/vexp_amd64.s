#include "textflag.h"

// func expVectorAsm(x []float64, c *float64) int
//
// math/exp_amd64.s's FMA path, four lanes at a time (see doc.go). Y15…Y5
// hold the broadcast constants; each block: Y0 = x.
TEXT ·expVectorAsm(SB), NOSPLIT, $0-40
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ c+24(FP), DX
	XORQ AX, AX                 // lanes done
	VBROADCASTSD 0(DX), Y15     // log₂e
	VBROADCASTSD 8(DX), Y14     // ln2 upper
	VBROADCASTSD 16(DX), Y13    // ln2 lower
	VBROADCASTSD 24(DX), Y12    // 1/16
	VBROADCASTSD 96(DX), Y11    // 2
	VBROADCASTSD 88(DX), Y10    // 1
	VBROADCASTSD 104(DX), Y9    // −700
	VBROADCASTSD 112(DX), Y8    // 700
	VBROADCASTSD 120(DX), Y7    // −746
	MOVQ $0x3FF, BX
	VMOVQ BX, X6
	VPBROADCASTQ X6, Y6         // the exponent bias in every 64-bit lane

loop:
	CMPQ CX, $4
	JL   done
	VMOVUPD (SI), Y0
	// Which lanes can be done here: −700 ≤ x ≤ 700 (ordered: NaN is
	// not), or x < −746 (the result is 0).
	VCMPPD $0x1D, Y9, Y0, Y1    // x ≥ −700
	VCMPPD $0x12, Y8, Y0, Y2    // x ≤ 700
	VANDPD Y2, Y1, Y1
	VCMPPD $0x11, Y7, Y0, Y5    // x < −746
	VORPD  Y5, Y1, Y1
	VMOVMSKPD Y1, BX
	CMPQ BX, $15
	JNE  done

	// k = round(x·log₂e) (MXCSR's rounding, as CVTSD2SL), as int32 in X2
	// and back as a float in Y1.
	VMULPD Y15, Y0, Y1
	VCVTPD2DQY Y1, X2
	VCVTDQ2PD X2, Y1
	// r = x − k·ln2u − k·ln2l, each a fused multiply-add, then r/16.
	VFNMADD231PD Y14, Y1, Y0
	VFNMADD231PD Y13, Y1, Y0
	VMULPD Y12, Y0, Y0
	// The Taylor polynomial, Horner with fused multiply-adds: p = p·r + c.
	VBROADCASTSD 32(DX), Y3
	VBROADCASTSD 40(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 48(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 56(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 64(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 72(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 80(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VFMADD213PD Y10, Y0, Y3
	// r ← r·p, then four times (r+2)·r, the last fused with +1:
	// e^{r} − 1 squared up from e^{r/16} − 1.
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VFMADD213PD Y10, Y3, Y0
	// ·2^k: (k + 1023) << 52 is 2^k's bits for a normal 2^k.
	VPMOVSXDQ X2, Y4
	VPADDQ Y6, Y4, Y4
	VPSLLQ $52, Y4, Y4
	VMULPD Y4, Y0, Y0
	// Lanes below −746 are 0.
	VANDNPD Y0, Y5, Y0
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
// points back to back in pts; the exponential as expVectorAsm (the same
// constants in the same registers, Y0 the argument), every operation the
// one kernel.RowFlat's Go performs. Returns the points done (a multiple
// of four): it stops before a block whose exponential it cannot take,
// with nothing of that block written.
TEXT ·seRow2Asm(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), SI
	MOVQ dst_len+8(FP), CX
	MOVQ pts_base+24(FP), DI
	MOVQ c+48(FP), DX
	MOVQ p+56(FP), R8
	XORQ AX, AX                 // points done
	VBROADCASTSD 0(DX), Y15     // log₂e
	VBROADCASTSD 8(DX), Y14     // ln2 upper
	VBROADCASTSD 16(DX), Y13    // ln2 lower
	VBROADCASTSD 24(DX), Y12    // 1/16
	VBROADCASTSD 96(DX), Y11    // 2
	VBROADCASTSD 88(DX), Y10    // 1
	VBROADCASTSD 104(DX), Y9    // −700
	VBROADCASTSD 112(DX), Y8    // 700
	VBROADCASTSD 120(DX), Y7    // −746
	MOVQ $0x3FF, BX
	VMOVQ BX, X6
	VPBROADCASTQ X6, Y6         // the exponent bias in every 64-bit lane

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
	// Which lanes can be done here: −700 ≤ x ≤ 700 (ordered: NaN is
	// not), or x < −746 (the result is 0).
	VCMPPD $0x1D, Y9, Y0, Y1    // x ≥ −700
	VCMPPD $0x12, Y8, Y0, Y2    // x ≤ 700
	VANDPD Y2, Y1, Y1
	VCMPPD $0x11, Y7, Y0, Y5    // x < −746
	VORPD  Y5, Y1, Y1
	VMOVMSKPD Y1, BX
	CMPQ BX, $15
	JNE  rdone

	// k = round(x·log₂e) (MXCSR's rounding, as CVTSD2SL), as int32 in X2
	// and back as a float in Y1.
	VMULPD Y15, Y0, Y1
	VCVTPD2DQY Y1, X2
	VCVTDQ2PD X2, Y1
	// r = x − k·ln2u − k·ln2l, each a fused multiply-add, then r/16.
	VFNMADD231PD Y14, Y1, Y0
	VFNMADD231PD Y13, Y1, Y0
	VMULPD Y12, Y0, Y0
	// The Taylor polynomial, Horner with fused multiply-adds: p = p·r + c.
	VBROADCASTSD 32(DX), Y3
	VBROADCASTSD 40(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 48(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 56(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 64(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 72(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VBROADCASTSD 80(DX), Y4
	VFMADD213PD Y4, Y0, Y3
	VFMADD213PD Y10, Y0, Y3
	// r ← r·p, then four times (r+2)·r, the last fused with +1:
	// e^{r} − 1 squared up from e^{r/16} − 1.
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y11, Y0, Y3
	VFMADD213PD Y10, Y3, Y0
	// ·2^k: (k + 1023) << 52 is 2^k's bits for a normal 2^k.
	VPMOVSXDQ X2, Y4
	VPADDQ Y6, Y4, Y4
	VPSLLQ $52, Y4, Y4
	VMULPD Y4, Y0, Y0
	// Lanes below −746 are 0.
	VANDNPD Y0, Y5, Y0
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
