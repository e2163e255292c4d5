using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>How a run's measurements are shaped: blocks, slots per variant in a block, and a slot's seconds.</summary>
public sealed record BlockShape(int Blocks, int SlotsPerVariant, double SlotSeconds);

/// <summary>A slot of the baseline and the next slot of the compared variant, in the same block.</summary>
/// <param name="Group">Which comparison the pair belongs to (the compared
/// variant): each has its own true ratio, taken out before the spread.</param>
public sealed record SlotPair(double BaselineRps, double OtherRps, double? BaselineCostMs, double? OtherCostMs, string Group = "");

/// <summary>
/// The machine's noise and the smallest change a budget can decide, from two sources: a calibration at the start
/// (the warm-up's per-second throughput and a fixed CPU task) and the run's own slots. A change is decidable when it
/// exceeds the 95 % half-width of a paired comparison: with B blocks of S slot pairs, the log ratio of a block has a
/// standard deviation of s/√S (s: that of one slot pair), so the half-width is t(B−1)·s/√(S·B).
/// </summary>
public static class NoiseEstimate
{
    /// <summary>
    /// Variation second to second, from successive differences (√(Σ(xᵢ₊₁−xᵢ)²/2(n−1)) over the mean): a slow drift,
    /// which pairing cancels, adds almost nothing to it. Percent; NaN with fewer than three values.
    /// </summary>
    public static double SecondToSecondCvPercent(IReadOnlyList<double> values)
    {
        if (values.Count < 3 || values.Average() is var mean && mean <= 0)
        {
            return double.NaN;
        }
        var squares = 0.0;
        for (var i = 1; i < values.Count; i++)
        {
            squares += (values[i] - values[i - 1]) * (values[i] - values[i - 1]);
        }
        return Math.Sqrt(squares / (2 * (values.Count - 1))) / mean * 100;
    }

    /// <summary>
    /// Before any slot: the warm-up's per-second throughput (its settled tail) and a fixed task's repetitions. A slot
    /// pair's noise is two slots' worth of per-second noise averaged over the slot's seconds; the core's speed, which
    /// CPU per request follows, is taken as not averaging out at all (it changes in stretches of seconds).
    /// </summary>
    public static MachineNoise AtStart(IReadOnlyList<double> warmupRps, CpuCalibration calibration, BlockShape shape)
    {
        var rpsCv = SecondToSecondCvPercent(warmupRps);
        var seconds = Math.Max(1, shape.SlotSeconds);
        var pairRps = Math.Sqrt(2) * rpsCv / Math.Sqrt(seconds);
        var speedCv = calibration.SpeedCvPercent;
        var pairCost = Math.Sqrt(2) * speedCv;
        return new MachineNoise("calibration", rpsCv, speedCv, HalfWidth(pairRps, shape), HalfWidth(pairCost, shape),
            speedCv, calibration.CoreSharePercent)
        {
            Blocks = shape.Blocks,
        };
    }

    /// <summary>
    /// From the run's own slot pairs: the spread of their log ratios
    /// around each comparison's own, throughput and cost alike.
    /// </summary>
    public static MachineNoise? Measured(IReadOnlyList<SlotPair> pairs, BlockShape shape, CpuCalibration? calibration = null)
    {
        var rps = pairs.Where(p => p.BaselineRps > 0 && p.OtherRps > 0).Select(p => (p.Group, Log: Math.Log(p.OtherRps / p.BaselineRps)))
            .ToList();
        if (rps.Count < 3)
        {
            return null;
        }
        var cost = pairs.Where(p => p.BaselineCostMs > 0 && p.OtherCostMs > 0)
            .Select(p => (p.Group, Log: Math.Log(p.OtherCostMs!.Value / p.BaselineCostMs!.Value))).ToList();
        var rpsSd = Percent(PooledSd(rps));
        double? costSd = cost.Count >= 3 ? Percent(PooledSd(cost)) : null;
        return new MachineNoise("measured", rpsSd, costSd, HalfWidth(rpsSd, shape), costSd is { } c ? HalfWidth(c, shape) : null,
            calibration?.SpeedCvPercent, calibration?.CoreSharePercent)
        {
            Blocks = shape.Blocks,
        };
    }

    /// <summary>The run's slot pairs: in each block, every variant's slots against the baseline's, slot by slot.</summary>
    public static MachineNoise? OfRuns(string baseline, IReadOnlyList<RunRecord> runs, CpuCalibration? calibration = null)
    {
        var ok = runs.Where(r => r.Status == RunStatus.Ok && r.Cost is { Windows.Count: > 0 }).ToList();
        if (ok.Count == 0)
        {
            return null;
        }
        static double Rps(CpuWindow w) => w.Seconds > 0 ? w.Requests / w.Seconds : 0;
        // Cost as it decides: at the cores' full speed when both slots sampled it.
        static SlotPair Pair(CpuWindow x, CpuWindow y, string variant) =>
            x.FullSpeedMsPerRequest is { } xs && y.FullSpeedMsPerRequest is { } ys
                ? new SlotPair(Rps(x), Rps(y), xs, ys, variant)
                : new SlotPair(Rps(x), Rps(y), x.MsPerRequest, y.MsPerRequest, variant);
        var pairs = new List<SlotPair>();
        foreach (var block in ok.GroupBy(r => r.Repetition))
        {
            if (block.FirstOrDefault(r => r.Variant == baseline) is not { } a)
            {
                continue;
            }
            foreach (var b in block.Where(r => r.Variant != baseline))
            {
                // Short windows as the comparison reads them: only the pairs whose cores ran at a matching speed.
                var shortWindows = CostPairs.AllShort(a.Cost!) && CostPairs.AllShort(b.Cost!);
                pairs.AddRange(a.Cost!.Windows.Zip(b.Cost!.Windows)
                    .Where(p => !shortWindows || CostPairs.Matched(p.First, p.Second))
                    .Select(p => Pair(p.First, p.Second, b.Variant)));
            }
        }
        var shape = new BlockShape(ok.Select(r => r.Repetition).Distinct().Count(), ok.Max(r => r.Cost!.Windows.Count),
            ok.SelectMany(r => r.Cost!.Windows).Average(w => w.Seconds));
        return Measured(pairs, shape, calibration);
    }

    private static double Percent(double logSd) => (Math.Exp(logSd) - 1) * 100;

    private static double PooledSd(IReadOnlyList<(string Group, double Log)> values)
    {
        var groups = values.GroupBy(v => v.Group).ToList();
        var squares = groups.Sum(g => g.Sum(v => Math.Pow(v.Log - g.Average(x => x.Log), 2)));
        var df = values.Count - groups.Count;
        return df > 0 ? Math.Sqrt(squares / df) : double.NaN;
    }

    /// <summary>The 95 % half-width, in percent, of a paired comparison over the shape's blocks, from one slot pair's spread.</summary>
    public static double HalfWidth(double pairSdPercent, BlockShape shape)
    {
        var blocks = Math.Max(2, shape.Blocks);
        var pairs = Math.Max(1, shape.SlotsPerVariant) * blocks;
        return Statistics.TwoSidedT(blocks - 1) * pairSdPercent / Math.Sqrt(pairs);
    }
}
