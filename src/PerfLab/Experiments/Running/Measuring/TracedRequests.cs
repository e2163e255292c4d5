using System.Globalization;
using PerfLab.Load;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// The requests a load completed while a trace ran, from its per-second timeline: the divisor of every per-request
/// figure a trace gives. The load's average rate times the traced seconds is not it: a burst's batches, or a starved
/// app's few completions, may all fall outside the trace.
/// </summary>
public static class TracedRequests
{
    /// <summary>Completions in the seconds that overlap [from, to), each second weighted by its overlap.</summary>
    public static long Between(LoadResult result, DateTimeOffset from, DateTimeOffset to)
    {
        var start = from.ToUnixTimeMilliseconds() / 1000.0;
        var end = to.ToUnixTimeMilliseconds() / 1000.0;
        var sum = result.Scenarios.SelectMany(s => s.Timeline)
            .Sum(p => p.Requests * Math.Max(0, Math.Min(p.UnixSecond + 1, end) - Math.Max(p.UnixSecond, start)));
        return (long)Math.Round(sum);
    }

    /// <summary>The load's mean latency over all its scenarios, weighted by requests; NaN without requests.</summary>
    public static double MeanLatencyMs(LoadResult result)
    {
        var requests = result.Scenarios.Sum(s => s.Requests);
        return requests > 0 ? result.Scenarios.Sum(s => s.Latency.MeanMs * s.Requests) / requests : double.NaN;
    }

    /// <summary>
    /// The requests the trace's per-request figures divide by: its own completions, or, when too few completed while it
    /// ran (each request outlasting the trace, as a starved blocking variant's 12 s requests do) and the load is timed,
    /// the measured window's rate times the traced seconds. In a steady state the thread time blocked per second over
    /// the requests completed per second is the time blocked per request (Little's law), whichever requests finished
    /// inside the trace. A burst's rate is no steady state, so a counted load keeps its own completions.
    /// </summary>
    public static (long Requests, string? Note) Divisor(long traced, double measuredRps, double tracedSeconds, bool timed)
    {
        if (traced >= TraceFindings.MinRequests || !timed || !(measuredRps > 0))
        {
            return (traced, null);
        }
        var steady = (long)Math.Round(measuredRps * tracedSeconds);
        return steady < TraceFindings.MinRequests
            ? (traced, null)
            : (steady, string.Create(CultureInfo.InvariantCulture,
                $"only {traced} requests completed while the trace ran (they outlast it): per-request figures divide by the measured "
                    + $"window's rate instead ({measuredRps:0.#} RPS x {tracedSeconds:0.0} s = {steady} requests)."));
    }

    public static string TooFew(long requests) => string.Create(CultureInfo.InvariantCulture,
        $"only {requests} requests completed while the trace ran: too few to divide by, so this trace gives no per-request figure (thread "
            + $"and CPU time are per second traced instead).");
}
