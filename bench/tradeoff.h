// tradeoff.h: experiment 6 of pacer-bench, the precise-sleep trade-off. Per
// cell (condition x rate) every variant waits on the same frame grid in
// interleaved rounds: the timer with fixed margins (the curve of CPU against
// wake lateness), the library's adaptive timer, spin (the floor), the seeds'
// peers (peers.h: SDL3's SDL_DelayPrecise and the seeds' loops). It prints each cell's
// points and the verdicts, computed from the same rounds.
#pragma once

#include "experiments.h"
#include "report.h"

namespace bench {

extern const char* const kTradeoffColumns;

void run_tradeoff(const Options& options, CsvFile& csv);
// The variants' CSV names, the library's timer first (--variants picks among them).
std::vector<std::string> tradeoff_variant_keys(bool candidates);

}  // namespace bench
