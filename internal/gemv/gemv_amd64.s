#include "textflag.h"

// func addNegTAVX2(y, v []float64, stride int, l []float64)
//
// As gonum's GemvT with alpha −1: −l_s is l_s with its sign bit flipped
// (exactly gonum's alpha·x_s), the rows pass in blocks of four (then one
// at a time), and for each block every y_j takes the block's four
// products in row order, y_j ← y_j + (−l_s)·V[s, j], a VMULPD then a VADDPD (two
// roundings, as gonum's SSE2 MULPD and ADDPD) — four columns per
// instruction instead of two, so every y_j sees the same operations in
// the same order.
TEXT ·addNegTAVX2(SB), NOSPLIT, $0-80
	MOVQ v_base+24(FP), SI     // row s of V
	MOVQ stride+48(FP), R8
	SHLQ $3, R8                // stride in bytes
	LEAQ (R8)(R8*2), R14       // 3·stride
	MOVQ l_base+56(FP), R9     // l_s
	MOVQ l_len+64(FP), R10     // rows left
	MOVQ $0x8000000000000000, AX
	VMOVQ AX, X12
	VBROADCASTSD X12, Y12      // the sign bit in every lane

rows4:
	CMPQ R10, $4
	JL   rows1
	VBROADCASTSD (R9), Y8
	VBROADCASTSD 8(R9), Y9
	VBROADCASTSD 16(R9), Y10
	VBROADCASTSD 24(R9), Y11
	VXORPD Y12, Y8, Y8
	VXORPD Y12, Y9, Y9
	VXORPD Y12, Y10, Y10
	VXORPD Y12, Y11, Y11
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ SI, R11

cols4x4:
	CMPQ CX, $4
	JL   cols4x1
	VMOVUPD (DI), Y0
	VMULPD  (R11), Y8, Y4
	VADDPD  Y4, Y0, Y0
	VMULPD  (R11)(R8*1), Y9, Y5
	VADDPD  Y5, Y0, Y0
	VMULPD  (R11)(R8*2), Y10, Y6
	VADDPD  Y6, Y0, Y0
	VMULPD  (R11)(R14*1), Y11, Y7
	VADDPD  Y7, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, R11
	SUBQ $4, CX
	JMP  cols4x4

cols4x1:
	TESTQ CX, CX
	JZ    next4
	VMOVSD (DI), X0
	VMULSD (R11), X8, X4
	VADDSD X4, X0, X0
	VMULSD (R11)(R8*1), X9, X5
	VADDSD X5, X0, X0
	VMULSD (R11)(R8*2), X10, X6
	VADDSD X6, X0, X0
	VMULSD (R11)(R14*1), X11, X7
	VADDSD X7, X0, X0
	VMOVSD X0, (DI)
	ADDQ $8, DI
	ADDQ $8, R11
	DECQ CX
	JMP  cols4x1

next4:
	LEAQ (SI)(R8*4), SI
	ADDQ $32, R9
	SUBQ $4, R10
	JMP  rows4

rows1:
	TESTQ R10, R10
	JZ    done
	VBROADCASTSD (R9), Y8
	VXORPD Y12, Y8, Y8
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ SI, R11

cols1x4:
	CMPQ CX, $4
	JL   cols1x1
	VMOVUPD (DI), Y0
	VMULPD  (R11), Y8, Y4
	VADDPD  Y4, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, R11
	SUBQ $4, CX
	JMP  cols1x4

cols1x1:
	TESTQ CX, CX
	JZ    next1
	VMOVSD (DI), X0
	VMULSD (R11), X8, X4
	VADDSD X4, X0, X0
	VMOVSD X0, (DI)
	ADDQ $8, DI
	ADDQ $8, R11
	DECQ CX
	JMP  cols1x1

next1:
	ADDQ R8, SI
	ADDQ $8, R9
	DECQ R10
	JMP  rows1

done:
	VZEROUPPER
	RET
