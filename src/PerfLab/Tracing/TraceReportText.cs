using System.Globalization;
using System.Text;

namespace PerfLab.Tracing;

/// <summary>The plain-text report `perflab trace report` prints: breakdown, contention, waits, GC, findings.</summary>
public static class TraceReportText
{
    public static string Render(string name, TraceProfile profile, IReadOnlyList<TraceFinding> findings, long requests)
    {
        var text = new StringBuilder();
        Line(text, F($"{name}: {profile.TracedSeconds:F1} s traced, a tick every {profile.TickIntervalMs:F2} ms ") +
            F($"({profile.SampleIntervalMs:F2} ms outside GC pauses), ") +
            F($"{profile.CpuSamples} on-CPU samples, {profile.WaitingSamples} waiting") +
            (requests > 0 ? F($", {requests} requests") : ""));
        foreach (var warning in profile.Warnings)
        {
            Line(text, "warning: " + warning);
        }
        Breakdown(text, profile, requests);
        var gc = profile.Gc;
        Line(text, F($"GC: {gc.Count} GCs (gen0 {gc.CountByGeneration[0]}, gen1 {gc.CountByGeneration[1]}, ") +
            F($"gen2 {gc.CountByGeneration[2]}), ") +
            F($"paused {gc.PauseMs:F1} ms ({gc.PauseShareOfWall * 100:F1} % of wall time), GC CPU {gc.CpuMs:F0}-{gc.CpuUpperMs:F0} ms ") +
                F($"= {gc.ShareOfCpu * 100:F1}-{gc.ShareOfCpuUpper * 100:F1} % of CPU; ") +
            F($"GC mode {gc.Mode}, up to {gc.Heaps} heap(s); {gc.SampleShare * 100:F1} % of on-CPU samples in GC frames"));
        Line(text, F($"Thread pool: {profile.ThreadPool.StarvationAdjustments} starvation ") +
            F($"and {profile.ThreadPool.BlockingAdjustments} blocking injections ") +
            F($"({profile.ThreadPool.Adjustments} adjustments), up to {profile.ThreadPool.MaxWorkerThreads} worker threads"));
        Sites(text, profile, requests);
        TopStacks(text, profile);
        Findings(text, findings);
        return text.ToString();
    }

    private static void Breakdown(StringBuilder text, TraceProfile profile, long requests)
    {
        text.AppendLine();
        Line(text, F($"{"CPU by component",-18} {"ms",10} {"share",8}") + (requests > 0 ? F($" {"ms/request",11}") : ""));
        foreach (var c in profile.Components)
        {
            Line(text, F($"  {c.Component,-16} {c.Ms,10:F1} {c.Share * 100,6:F1} %")
                + (requests > 0 ? F($" {c.Ms / requests,11:F3}") : ""));
        }
        Line(text, F($"  {"total",-16} {profile.CpuMs,10:F1} {100.0,6:F1} %")
            + (requests > 0 ? F($" {profile.CpuMs / requests,11:F3}") : ""));
        text.AppendLine();
    }

    private static void Sites(StringBuilder text, TraceProfile profile, long requests)
    {
        text.AppendLine();
        Line(text, F($"Lock contention by call site: {profile.Contention.Count} site(s)"));
        foreach (var c in profile.Contention.Take(10))
        {
            Line(text, F($"  {c.Place,-50} {c.Count,8} x {c.BlockedMs,10:F1} ms blocked") + PerRequest(c.BlockedMs, requests) +
                F($", {c.AcquireCpuMs:F1} ms on CPU acquiring"));
        }
        if (profile.PoolThreads is { } pool)
        {
            Line(text, F($"Pool threads' time (sampler stacks): running {pool.RunningMs:F0} ms, blocked {pool.BlockedMs:F0} ") +
                F($"ms, idle {pool.IdleMs:F0} ms, ") +
                F($"outside managed code {pool.OutsideManagedMs:F0} ms; blocked at once {pool.BlockedAtOnceMean:F1} on average, up ")
                    + F($"to {pool.BlockedAtOnceMax}"));
        }
        Line(text, F($"Blocking calls on request and pool threads: {profile.BlockingWaits.Count} site(s)"));
        var served = profile.Requests is { Requests: >= TraceFindings.MinRequests } r ? r : null;
        foreach (var w in profile.BlockingWaits.Take(MaxBlockingSites))
        {
            Line(text, F($"  {TraceFindings.Handler(w),-50} {TraceFindings.CallName(w),-24} {w.Waits,8} x {w.Ms,10:F1} ms blocked")
                + (served is null ? PerRequest(w.Ms, requests)
                    : w.Route is { } route
                        ? F($" ({route.MsPerRequest:F3} ms/request to {route.Path}, {w.MsPerRequest:F3} over all served)")
                    : F($" ({w.MsPerRequest:F3} ms/request served)")));
        }
        Served(text, profile.Requests);
    }

    // An app with a dozen blocking endpoints shows them all; beyond that the findings lead with the costliest.
    private const int MaxBlockingSites = 20;

    // The requests the trace saw from start to stop (RequestTally): the divisor of the blocked time per request.
    private static void Served(StringBuilder text, RequestBlocking? served)
    {
        if (served is null)
        {
            return;
        }
        Line(text, F($"Requests served wholly inside the trace: {served.Requests} ({served.LeftOut} in flight at its ends left out); ")
            + F($"blocked {served.BlockedMsPerRequest:F2} ms of {served.MeanMs:F2} ms per request"));
        foreach (var p in served.Paths)
        {
            Line(text, F($"  {p.Path,-50} {p.Requests,8} x blocked {p.BlockedMsPerRequest,9:F2} ms of {p.MeanMs,9:F2} ms"));
        }
    }

    // One line per stack: its weight and its three innermost frames, enough to find it in the flame graph.
    private static void TopStacks(StringBuilder text, TraceProfile profile)
    {
        text.AppendLine();
        Line(text, F($"Heaviest CPU stacks ({profile.TopStacks.Count} of {profile.Stacks.Count}), innermost frames last:"));
        foreach (var stack in profile.TopStacks)
        {
            var frames = string.Join(" > ", stack.Frames.TakeLast(3).Select(FrameNames.MethodPart));
            Line(text, F($"  {stack.Samples,7} {stack.Samples * profile.SampleIntervalMs,9:F1} ms  {frames}"));
        }
    }

    private static void Findings(StringBuilder text, IReadOnlyList<TraceFinding> findings)
    {
        text.AppendLine();
        Line(text, F($"Findings: {findings.Count}"));
        foreach (var f in findings)
        {
            Line(text, F($"  [{(f.Strong ? "strong" : "weak")}] {f.Message}"));
            foreach (var e in f.Evidence)
            {
                Line(text, F($"      {e}"));
            }
        }
    }

    private static string PerRequest(double ms, long requests) =>
        requests > 0 ? F($" ({ms / requests:F3} ms/request)") : "";

    private static void Line(StringBuilder text, string line) => text.Append(line).Append('\n');

    private static string F(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
