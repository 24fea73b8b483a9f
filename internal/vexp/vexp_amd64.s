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
