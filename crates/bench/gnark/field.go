package main

// The base fields' product and square (goff's generated assembly), timed by the same three
// loops as fastzk's `field_peers` bench: a chain of 100 dependent products, a chain of
// 100 dependent squares, and 1024 independent products; ns per operation, median of
// `rounds` interleaved rounds, one JSON line per figure.

import (
	"encoding/json"
	"fmt"
	"time"

	blsfp "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	bnfp "github.com/consensys/gnark-crypto/ecc/bn254/fp"
)

const (
	fieldChain = 100
	fieldVec   = 1024
	fieldOps   = 300000
)

type fieldResult struct {
	Impl  string  `json:"impl"`
	Field string  `json:"field"`
	Op    string  `json:"op"`
	Ns    float64 `json:"ns"`
}

type fieldCase struct {
	field, op string
	run       func() float64
}

// nsPer times body, which performs ops operations.
func nsPer(ops int, body func()) float64 {
	t := time.Now()
	body()
	return float64(time.Since(t).Nanoseconds()) / float64(ops)
}

// The loops are written out per field type: with generics, Go calls methods through a
// dictionary (an indirect call per product), which would tax the peer's figures.

func bnCases() []fieldCase {
	var x, y bnfp.Element
	x.MustSetRandom()
	y.MustSetRandom()
	xs, ys, out := make([]bnfp.Element, fieldVec), make([]bnfp.Element, fieldVec), make([]bnfp.Element, fieldVec)
	for i := range xs {
		xs[i].MustSetRandom()
		ys[i].MustSetRandom()
	}
	reps := fieldOps / fieldChain
	return []fieldCase{
		{"bn254-fq", "mul-chain", func() float64 {
			return nsPer(reps*fieldChain, func() {
				for r := 0; r < reps; r++ {
					v := x
					for i := 0; i < fieldChain; i++ {
						v.Mul(&v, &y)
					}
					sink += v[0]
				}
			})
		}},
		{"bn254-fq", "square-chain", func() float64 {
			return nsPer(reps*fieldChain, func() {
				for r := 0; r < reps; r++ {
					v := x
					for i := 0; i < fieldChain; i++ {
						v.Square(&v)
					}
					sink += v[0]
				}
			})
		}},
		{"bn254-fq", "mul-vector", func() float64 {
			n := fieldOps / fieldVec
			return nsPer(n*fieldVec, func() {
				for r := 0; r < n; r++ {
					for i := range out {
						out[i].Mul(&xs[i], &ys[i])
					}
					sink += out[0][0]
				}
			})
		}},
	}
}

func blsCases() []fieldCase {
	var x, y blsfp.Element
	x.MustSetRandom()
	y.MustSetRandom()
	xs, ys, out := make([]blsfp.Element, fieldVec), make([]blsfp.Element, fieldVec), make([]blsfp.Element, fieldVec)
	for i := range xs {
		xs[i].MustSetRandom()
		ys[i].MustSetRandom()
	}
	reps := fieldOps / fieldChain
	return []fieldCase{
		{"bls12-381-fq", "mul-chain", func() float64 {
			return nsPer(reps*fieldChain, func() {
				for r := 0; r < reps; r++ {
					v := x
					for i := 0; i < fieldChain; i++ {
						v.Mul(&v, &y)
					}
					sink += v[0]
				}
			})
		}},
		{"bls12-381-fq", "square-chain", func() float64 {
			return nsPer(reps*fieldChain, func() {
				for r := 0; r < reps; r++ {
					v := x
					for i := 0; i < fieldChain; i++ {
						v.Square(&v)
					}
					sink += v[0]
				}
			})
		}},
		{"bls12-381-fq", "mul-vector", func() float64 {
			n := fieldOps / fieldVec
			return nsPer(n*fieldVec, func() {
				for r := 0; r < n; r++ {
					for i := range out {
						out[i].Mul(&xs[i], &ys[i])
					}
					sink += out[0][0]
				}
			})
		}},
	}
}

// sink keeps the results alive.
var sink uint64

func fieldMain(rounds int) {
	cases := append(bnCases(), blsCases()...)
	samples := make([][]float64, len(cases))
	for r := 0; r < rounds; r++ {
		for i, c := range cases {
			samples[i] = append(samples[i], c.run())
		}
	}
	for i, c := range cases {
		med, _ := median(samples[i])
		out, _ := json.Marshal(fieldResult{"gnark-crypto", c.field, c.op, med})
		fmt.Println(string(out))
	}
}
