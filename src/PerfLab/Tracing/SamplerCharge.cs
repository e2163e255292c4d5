using System.Globalization;

namespace PerfLab.Tracing;

/// <summary>
/// The CPU the kernel charged a traced process, split by what the sample profiler can see. Measured on the 2-core
/// machine (BlockingApp's Thread.Sleep endpoint under load, busy machine): of 1.1 s charged over a 5 s trace, the
/// request threads took under 0.2 s; the rest went to threads the sampler never samples because they run no managed
/// code: the trace's own ".NET EventPipe" threads (streaming and sampling, 0.15 s) and the tiered JIT's ".NET Tiered
/// Com" (0.35-0.8 s, recompiling hot methods at tier 1). A process that blocks rather than computes has so little CPU
/// of its own that these dominate, and the samples seemed to miss "most of the CPU". So the coverage check compares
/// the samples with the CPU of the threads that run managed code, and the per-request CPU leaves the trace's own out.
/// </summary>
/// <param name="ChargedMs">All CPU the kernel charged the process over the trace.</param>
/// <param name="SampledMs">Of that, the CPU of threads the sampler can see (without tracing, JIT and GC threads).</param>
/// <param name="AppMs">Of that, the CPU the app would have spent untraced (without the trace's own threads).</param>
public sealed record SamplerCharge(double ChargedMs, double SampledMs, double AppMs)
{
    /// <param name="chargedMs">The process's CPU over the trace (/proc/PID/stat); NaN when unknown.</param>
    /// <param name="threads">Per-thread CPU over the same stretch; empty when it could not be read.</param>
    public static SamplerCharge Of(double chargedMs, IReadOnlyList<ThreadGroupCpu> threads)
    {
        if (!double.IsFinite(chargedMs) || threads.Count == 0)
        {
            return new SamplerCharge(chargedMs, chargedMs, chargedMs);
        }
        var unsampled = threads.Where(t => t.Unsampled).Sum(t => t.Ms);
        var tracing = threads.Where(t => t.Tracing).Sum(t => t.Ms);
        return new SamplerCharge(chargedMs, Math.Max(0, chargedMs - unsampled), Math.Max(0, chargedMs - tracing));
    }

    /// <summary>"; kernel CPU by thread: .NET Tiered Com 350 ms, ..." for a run's progress line; empty without figures.</summary>
    public static string Describe(IReadOnlyList<ThreadGroupCpu>? threads) =>
        threads is null || threads.Count == 0 ? "" : "; kernel CPU by thread over the trace: " + string.Join(", ",
            threads.Take(5).Select(t => string.Create(CultureInfo.InvariantCulture, $"{t.Name} x{t.Threads} {t.Ms:F0} ms")));
}
