using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Warmup;

/// <summary>
/// The SUT runtime's compilations second by second, by tier (fed from its JIT events by <see cref="TieringWatch"/>),
/// and whether its tiering has settled (<see cref="TieringRule"/>). Written by the event reader's thread, read by the
/// warm-up's: every member takes the lock.
/// </summary>
public sealed class JitActivity(long watchedFromUnixMs)
{
    // EventPipe flushes about every 100 ms; a second is complete well after that.
    private const long GraceMs = 500;

    private readonly Lock _lock = new();
    private readonly SortedDictionary<long, (int First, int Promoted, int Osr)> _bySecond = [];
    private int _queued;
    private long _compiled;
    private bool _pulsed;
    private readonly long _watchedFromUnixMs = watchedFromUnixMs;
    private long _warmupFromUnixMs = watchedFromUnixMs;
    private long? _settledAtUnixMs;

    /// <summary>The warm-up starts now: the rule reads the seconds from here on (those before count only as compiled before).</summary>
    public void WarmingUp(long nowUnixMs)
    {
        lock (_lock)
        {
            _warmupFromUnixMs = nowUnixMs;
            _settledAtUnixMs = null;
        }
    }

    /// <summary>A method's code was published (MethodLoad), at the given tier.</summary>
    public void OnCompiled(long unixMs, OptimizationTier tier)
    {
        lock (_lock)
        {
            var second = unixMs / 1000;
            var (first, promoted, osr) = _bySecond.GetValueOrDefault(second);
            _compiled += tier is OptimizationTier.ReadyToRun or OptimizationTier.PreJIT ? 0 : 1;
            _bySecond[second] = tier switch
            {
                OptimizationTier.OptimizedTier1OSR => (first, promoted, osr + 1),
                OptimizationTier.OptimizedTier1 or OptimizationTier.OptimizedTier1Instrumented or OptimizationTier.QuickJittedInstrumented
                    => (first, promoted + 1, osr),
                // Ready-to-run code is precompiled: using it compiles nothing.
                OptimizationTier.ReadyToRun or OptimizationTier.PreJIT => (first, promoted, osr),
                _ => (first + 1, promoted, osr),
            };
        }
    }

    /// <summary>The background tier-1 worker started a batch (-1: running) or stopped with methods still queued.</summary>
    public void OnBackground(int queued)
    {
        lock (_lock)
        {
            _queued = queued;
        }
    }

    /// <summary>
    /// Whether the tiering rule holds over the seconds complete at
    /// <paramref name="nowUnixMs"/>; the first time it does is kept.
    /// </summary>
    public bool Settled(long nowUnixMs)
    {
        lock (_lock)
        {
            var from = _warmupFromUnixMs / 1000 + 1;
            var before = _bySecond.Where(pair => pair.Key < from)
                .Sum(pair => (long)pair.Value.First + pair.Value.Promoted + pair.Value.Osr);
            // A second is complete once its end lies a grace before now.
            var settled = TieringRule.IsSettled(Seconds(from, (nowUnixMs - GraceMs) / 1000 - 1), before, _queued);
            if (settled)
            {
                _settledAtUnixMs ??= nowUnixMs;
            }
            return settled;
        }
    }

    public bool Settled() => Settled(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());

    /// <summary>
    /// Methods compiled so far (first compiles, promotions and OSR), and whether the background tier-1 worker stands
    /// idle (it has not run yet, or it stopped: it stops once its queue is empty).
    /// </summary>
    public (long Compiled, bool Drained) Progress()
    {
        lock (_lock)
        {
            return (_compiled, _queued >= 0);
        }
    }

    /// <summary>
    /// Whether a warm-up pulse (<see cref="TieredWarmup"/>) left tiering settled (<see cref="TieringRule.IsPulseSettled"/>):
    /// <paramref name="compiledBefore"/> methods before it, all compiled since counted in it and its pause; the first time
    /// it does is kept.
    /// </summary>
    public bool PulseSettled(long compiledBefore, double pulseSeconds, long nowUnixMs)
    {
        lock (_lock)
        {
            _pulsed = true;
            var settled = TieringRule.IsPulseSettled(_compiled - compiledBefore, pulseSeconds, compiledBefore, _queued);
            if (settled)
            {
                _settledAtUnixMs ??= nowUnixMs;
            }
            return settled;
        }
    }

    /// <summary>
    /// What the runtime compiled during the warm-up (from the watch's start to <paramref name="measuredFrom"/>) and per
    /// second inside the measured windows, with the whole series, for the run's record.
    /// </summary>
    public TieringRecord Summarize(DateTimeOffset measuredFrom, IReadOnlyList<(DateTimeOffset From, DateTimeOffset To)> windows)
    {
        lock (_lock)
        {
            var measuredSecond = measuredFrom.ToUnixTimeSeconds();
            var all = Seconds(_watchedFromUnixMs / 1000, windows.Count == 0 ? measuredSecond : windows.Max(w => w.To).ToUnixTimeSeconds());
            var warmup = all.Where(s => s.UnixSecond >= _warmupFromUnixMs / 1000 && s.UnixSecond < measuredSecond).ToList();
            var inWindows = all.Where(s =>
                windows.Any(w => s.UnixSecond > w.From.ToUnixTimeSeconds() && s.UnixSecond <= w.To.ToUnixTimeSeconds())).ToList();
            var windowSeconds = windows.Sum(w => (w.To - w.From).TotalSeconds);
            double PerSecond(Func<JitSecond, int> f) => windowSeconds > 0 ? Math.Round(inWindows.Sum(f) / windowSeconds, 2) : 0;
            return new TieringRecord
            {
                Rule = _pulsed ? TieringRule.PulseDescription : TieringRule.Description,
                SettledAfterSeconds = _settledAtUnixMs is { } at ? Math.Round((at - _warmupFromUnixMs) / 1000.0, 1) : null,
                WarmupFirstCompiles = warmup.Sum(s => s.FirstCompiles),
                WarmupPromotions = warmup.Sum(s => s.Promotions),
                WarmupOsr = warmup.Sum(s => s.Osr),
                WindowCompilesPerSecond = PerSecond(s => s.Total),
                WindowPromotionsPerSecond = PerSecond(s => s.Promotions + s.Osr),
                Seconds = all.Select(s => new[] { s.FirstCompiles, s.Promotions, s.Osr }).ToList(),
            };
        }
    }

    // Every second in [from, to], a second without a compile as zeros.
    private List<JitSecond> Seconds(long from, long to)
    {
        var list = new List<JitSecond>();
        for (var s = from; s <= to; s++)
        {
            var (first, promoted, osr) = _bySecond.GetValueOrDefault(s);
            list.Add(new JitSecond(s, first, promoted, osr));
        }
        return list;
    }
}
