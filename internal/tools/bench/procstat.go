package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// ProcUsage is what a target's processes used during a step: CPU summed
// over all of them (vloki and the VictoriaLogs it asks), peak RSS of the
// first (the target's own process), and each process's own figures.
type ProcUsage struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	// PeakAnon is the peak of RssAnon: RSS less the file pages mapped
	// (VictoriaLogs reads its parts through mmap), which the kernel
	// takes back under pressure.
	PeakAnon int64 `json:"peak_anon_bytes"`
	// GoHeap is the first process's Go heap at its largest (nil: no
	// /metrics with Go's figures).
	GoHeap    *GoHeap        `json:"go_heap,omitempty"`
	Processes []ProcessUsage `json:"processes,omitempty"`
}

// ProcessUsage is one process's share of a ProcUsage.
type ProcessUsage struct {
	PID        int     `json:"pid"`
	CPUSeconds float64 `json:"cpu_seconds"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	PeakAnon   int64   `json:"peak_anon_bytes"`
}

// sampler watches processes: CPU from /proc/<pid>/stat, RSS from
// /proc/<pid>/status, sampled every 100 ms for the peak; and the first
// one's Go heap from its /metrics when a URL is given.
type sampler struct {
	pids  []int
	heap  *heapPoller
	start []float64 // CPU seconds of each process when sampling began
	stop  chan struct{}
	done  chan struct{}

	mu    sync.Mutex
	peaks []int64 // RSS of each process
	anons []int64 // RssAnon of each process
}

func startSampler(pids []int, metricsURL string) *sampler {
	s := &sampler{pids: pids, start: make([]float64, len(pids)), peaks: make([]int64, len(pids)), anons: make([]int64, len(pids)),
		stop: make(chan struct{}), done: make(chan struct{})}
	for i, p := range pids {
		s.start[i] = procCPU(p)
	}
	if metricsURL != "" {
		s.heap = startHeapPoller(metricsURL)
	}
	go s.loop()
	return s
}

func (s *sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample() {
	for i, p := range s.pids {
		rss, anon := memBytes(p)
		s.mu.Lock()
		s.peaks[i], s.anons[i] = max(s.peaks[i], rss), max(s.anons[i], anon)
		s.mu.Unlock()
	}
}

// finish stops sampling and returns the step's usage.
func (s *sampler) finish() ProcUsage {
	close(s.stop)
	<-s.done
	s.sample()
	var heap GoHeap
	if s.heap != nil {
		heap = s.heap.finish()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var u ProcUsage
	for i, p := range s.pids {
		pu := ProcessUsage{PID: p, CPUSeconds: procCPU(p) - s.start[i], PeakRSS: s.peaks[i], PeakAnon: s.anons[i]}
		u.CPUSeconds += pu.CPUSeconds
		u.Processes = append(u.Processes, pu)
	}
	if len(s.peaks) > 0 {
		u.PeakRSS, u.PeakAnon = s.peaks[0], s.anons[0]
	}
	if heap.Held > 0 {
		u.GoHeap = &heap
	}
	return u
}

// procCPU reads utime+stime (fields 14 and 15) of /proc/<pid>/stat.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(fields[11], 64)
	k, _ := strconv.ParseFloat(fields[12], 64)
	return (u + k) / clockTicks
}

// rssBytes reads VmRSS of /proc/<pid>/status.
func rssBytes(pid int) int64 {
	rss, _ := memBytes(pid)
	return rss
}

// memBytes reads VmRSS and RssAnon of /proc/<pid>/status.
func memBytes(pid int) (rss, anon int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	kb := func(v string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n << 10
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			rss = kb(v)
		} else if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			anon = kb(v)
		}
	}
	return rss, anon
}
