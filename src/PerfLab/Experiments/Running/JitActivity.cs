using PerfLab.Counters;

namespace PerfLab.Experiments.Running;

/// <summary>
/// Watches the SUT's methods-jitted-count while it warms up. Tiered compilation keeps recompiling hot methods for many
/// seconds under load (measured here: about 18 s at tier 0 speed before the jump, see docs/benchmarks.md "Noise"), and
/// throughput can look flat meanwhile, so a steady throughput alone does not mean the code being measured is final.
/// The runtime is settled when the last <see cref="QuietSeconds"/> samples each compiled at most
/// <see cref="QuietMethodsPerSecond"/> methods.
/// </summary>
public sealed class JitActivity : IProgress<CounterSample>
{
    public const int QuietSeconds = 2;
    public const double QuietMethodsPerSecond = 5;

    private readonly Lock _lock = new();
    private readonly Queue<double> _recent = new();

    /// <summary>
    /// True once the collector delivered the last <see cref="QuietSeconds"/> jit figures and they were quiet. Without
    /// figures (the collector not attached yet, or an older runtime) it stays false, so such a warm-up runs to its cap
    /// and the run says it never settled, rather than measuring code that may still be tiering.
    /// </summary>
    public bool Settled
    {
        get
        {
            lock (_lock)
            {
                return _recent.Count == QuietSeconds && _recent.All(m => m <= QuietMethodsPerSecond);
            }
        }
    }

    public void Report(CounterSample value)
    {
        if (value.Get(CounterNames.MethodsJitted) is not { } methods)
        {
            return;
        }
        lock (_lock)
        {
            _recent.Enqueue(methods);
            while (_recent.Count > QuietSeconds)
            {
                _recent.Dequeue();
            }
        }
    }
}
