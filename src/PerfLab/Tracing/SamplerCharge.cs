using System.Globalization;

namespace PerfLab.Tracing;

/// <summary>
/// The CPU the kernel charged a traced process, split by what the sample profiler can see. Measured per thread on the
/// shared 2-core machine (docs/blocking-calls.md): over a 5 s trace of sleep-vs-delay's sync variant the pool threads
/// took 59 ms, the tiered JIT's ".NET Tiered Com" 192 ms and the trace's own ".NET EventPipe" 104 ms; of its async
/// variant, 1 ms, 1054 ms and 101 ms. Those threads run no managed code, so the sampler never samples them; a process
/// that blocks rather than computes has so little CPU of its own that they are most of the charge, and the samples
/// seemed to miss "most of the CPU". So the coverage check compares the samples with the CPU of the threads that can
/// run managed code, and the per-request CPU leaves the trace's own threads out.
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
