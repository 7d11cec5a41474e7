// gnark-crypto MSM timing harness for fastzk's comparison script.
//
//	go run . -curve bn254 -group g1 -log-size 20 -scalars random -runs 5 -threads 2
//	go run . -field -runs 11
//
// Prints one JSON line with the median time in milliseconds (with -field: one line per
// field operation, in ns).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"sort"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	bn "github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

type result struct {
	Impl     string  `json:"impl"`
	Curve    string  `json:"curve"`
	Group    string  `json:"group"`
	LogSize  int     `json:"log_size"`
	Scalars  string  `json:"scalars"`
	Threads  int     `json:"threads"`
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
	Runs     int     `json:"runs"`
}

// scalarInts returns n scalars as big integers: uniform, or 32 distinct values.
func scalarInts(n int, kind string, mod *big.Int, rng *rand.Rand) []*big.Int {
	draw := func() *big.Int {
		b := make([]byte, 40)
		rng.Read(b)
		return new(big.Int).Mod(new(big.Int).SetBytes(b), mod)
	}
	out := make([]*big.Int, n)
	if kind == "clustered" {
		vals := make([]*big.Int, 32)
		for i := range vals {
			vals[i] = draw()
		}
		for i := range out {
			out[i] = vals[rng.Intn(32)]
		}
		return out
	}
	for i := range out {
		out[i] = draw()
	}
	return out
}

func median(ts []float64) (float64, float64) {
	sort.Float64s(ts)
	return ts[len(ts)/2], ts[0]
}

func timeRuns(runs int, f func()) []float64 {
	f() // warm-up
	ts := make([]float64, 0, runs)
	for i := 0; i < runs; i++ {
		t := time.Now()
		f()
		ts = append(ts, float64(time.Since(t).Microseconds())/1000.0)
	}
	return ts
}

func main() {
	curve := flag.String("curve", "bn254", "bn254 | bls12-381")
	group := flag.String("group", "g1", "g1 | g2")
	logSize := flag.Int("log-size", 16, "log2 of the number of points")
	kind := flag.String("scalars", "random", "random | clustered")
	runs := flag.Int("runs", 5, "timed runs")
	threads := flag.Int("threads", 2, "MultiExp NbTasks")
	field := flag.Bool("field", false, "time the base fields' product and square instead (field.go)")
	flag.Parse()
	if *field {
		fieldMain(*runs)
		return
	}
	n := 1 << *logSize
	rng := rand.New(rand.NewSource(42))
	cfg := ecc.MultiExpConfig{NbTasks: *threads}
	var ts []float64
	switch *curve + "/" + *group {
	case "bn254/g1", "bn254/g2":
		ints := scalarInts(n, *kind, bnfr.Modulus(), rng)
		sc := make([]bnfr.Element, n)
		for i := range sc {
			sc[i].SetBigInt(ints[i])
		}
		g1, g2, _, _ := bn.Generators()
		if *group == "g1" {
			pts := make([]bn.G1Affine, n)
			var acc bn.G1Jac
			acc.Set(&g1)
			step := new(big.Int).SetUint64(rng.Uint64() | 1)
			var stepPt bn.G1Jac
			stepPt.ScalarMultiplication(&g1, step)
			jac := make([]bn.G1Jac, n)
			for i := range jac {
				jac[i] = acc
				acc.AddAssign(&stepPt)
			}
			pts = bn.BatchJacobianToAffineG1(jac)
			var r bn.G1Jac
			ts = timeRuns(*runs, func() { r.MultiExp(pts, sc, cfg) })
		} else {
			var acc bn.G2Jac
			acc.Set(&g2)
			step := new(big.Int).SetUint64(rng.Uint64() | 1)
			var stepPt bn.G2Jac
			stepPt.ScalarMultiplication(&g2, step)
			pts := make([]bn.G2Affine, n)
			for i := range pts {
				pts[i].FromJacobian(&acc)
				acc.AddAssign(&stepPt)
			}
			var r bn.G2Jac
			ts = timeRuns(*runs, func() { r.MultiExp(pts, sc, cfg) })
		}
	case "bls12-381/g1", "bls12-381/g2":
		ints := scalarInts(n, *kind, blsfr.Modulus(), rng)
		sc := make([]blsfr.Element, n)
		for i := range sc {
			sc[i].SetBigInt(ints[i])
		}
		g1, g2, _, _ := bls.Generators()
		if *group == "g1" {
			var acc bls.G1Jac
			acc.Set(&g1)
			step := new(big.Int).SetUint64(rng.Uint64() | 1)
			var stepPt bls.G1Jac
			stepPt.ScalarMultiplication(&g1, step)
			jac := make([]bls.G1Jac, n)
			for i := range jac {
				jac[i] = acc
				acc.AddAssign(&stepPt)
			}
			pts := bls.BatchJacobianToAffineG1(jac)
			var r bls.G1Jac
			ts = timeRuns(*runs, func() { r.MultiExp(pts, sc, cfg) })
		} else {
			var acc bls.G2Jac
			acc.Set(&g2)
			step := new(big.Int).SetUint64(rng.Uint64() | 1)
			var stepPt bls.G2Jac
			stepPt.ScalarMultiplication(&g2, step)
			pts := make([]bls.G2Affine, n)
			for i := range pts {
				pts[i].FromJacobian(&acc)
				acc.AddAssign(&stepPt)
			}
			var r bls.G2Jac
			ts = timeRuns(*runs, func() { r.MultiExp(pts, sc, cfg) })
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown curve/group %s/%s\n", *curve, *group)
		os.Exit(2)
	}
	med, min := median(ts)
	out, _ := json.Marshal(result{"gnark-crypto", *curve, *group, *logSize, *kind, *threads, med, min, len(ts)})
	fmt.Println(string(out))
}
