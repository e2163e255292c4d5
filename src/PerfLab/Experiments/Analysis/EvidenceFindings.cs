using System.Globalization;
using PerfLab.Results;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Puts the traces' evidence into an experiment's result: each traced variant's breakdown, the findings
/// the trace makes at a named place (strong, or labelled weak when they rest on few events), and, for every traced
/// variant against the traced baseline, what changed per request component by component. A counter-only lock
/// contention finding of a traced variant is withdrawn: the trace either names the lock's call site or did not see it.
/// A trace that failed is named in the notes, with why, so a variant without evidence says what happened to it.
/// </summary>
public static class EvidenceFindings
{
    public static ExperimentResult Apply(ExperimentResult result, IReadOnlyList<TracedRun> traced,
        IReadOnlyList<FailedTrace>? failed = null)
    {
        if (failed is { Count: > 0 })
        {
            result = result with { Notes = [.. result.Notes, .. failed.Select(f => f.Note)] };
        }
        if (traced.Count == 0)
        {
            return result;
        }
        var byVariant = traced.GroupBy(t => t.Evidence.Variant).ToDictionary(g => g.Key, g => g.First());
        var kept = result.Findings.Where(f => !(f.Kind == FindingKind.LockContention && byVariant.ContainsKey(f.Variant))
                                              && !WithdrawnByBlockingSite(f, byVariant));
        var fromTraces = result.Variants.Where(byVariant.ContainsKey)
            .SelectMany(v => byVariant[v].Findings.Select(f => ToFinding(v, f)));
        var changes = Changes(result.Baseline, result.Variants, byVariant);
        return result with
        {
            Evidence = result.Variants.Where(byVariant.ContainsKey).Select(v => byVariant[v].Evidence).ToList(),
            Findings = [.. kept, .. fromTraces, .. changes],
        };
    }

    /// <summary>
    /// The counters' guesses at blocked threads (starvation, blocked threads at low CPU) give way where the variant's trace
    /// names the blocking call and its place: the trace's finding says the same with the evidence.
    /// </summary>
    private static bool WithdrawnByBlockingSite(Finding finding, IReadOnlyDictionary<string, TracedRun> traced) =>
        finding.Kind is FindingKind.BlockedThreadsLowCpu or FindingKind.ThreadPoolStarvation
        && traced.TryGetValue(finding.Variant, out var run) && run.Findings.Any(f => f.Kind == TraceFindingKind.SyncOverAsync);

    public static Finding ToFinding(string variant, TraceFinding finding)
    {
        // The stack frames are shown with the call sites; the finding's evidence keeps the figures.
        var figures = string.Join("; ", finding.Evidence.Where(line => !line.StartsWith(' ') && !line.EndsWith(':')));
        var (kind, recommendation) = finding.Kind switch
        {
            TraceFindingKind.Contention => (FindingKind.LockContention,
                $"Take the lock in {finding.Place} off the hot path or hold it shorter (seed 004: no locks in hot paths)."),
            TraceFindingKind.SyncOverAsync => (FindingKind.SyncOverAsync,
                $"Do not block a pool thread in {finding.Place}: {Advice(finding.Message)} (seeds 000, 001, "
                    + "003 and 004: async all the way)."),
            TraceFindingKind.GcHeadroom => (FindingKind.GcHeadroom,
                "A GC setting (Server GC, DATAS, concurrent) can win at most this share; below a few percent, look elsewhere "
                    + "(seed 000, recommendation 3)."),
            _ => (FindingKind.CpuBreakdown, "Start with the largest component's heaviest stack (the flame graph in report.html)."),
        };
        return new Finding(variant, kind, finding.Message, recommendation, figures, finding.Place,
            finding.Strong ? EvidenceStrength.Strong : EvidenceStrength.Weak, finding.Title);
    }

    /// <summary>Per traced variant against the traced baseline: total CPU, its largest moves by component, and the waits.</summary>
    public static IEnumerable<Finding> Changes(string baseline, IReadOnlyList<string> variants,
        IReadOnlyDictionary<string, TracedRun> traced)
    {
        if (!traced.TryGetValue(baseline, out var b))
        {
            yield break;
        }
        foreach (var v in variants.Where(v => v != baseline && traced.ContainsKey(v)))
        {
            var e = traced[v].Evidence;
            var moves = e.CpuMsPerRequest.Keys.Union(b.Evidence.CpuMsPerRequest.Keys)
                .Select(c => (Component: c, Delta: Ms(e.CpuMsPerRequest, c) - Ms(b.Evidence.CpuMsPerRequest, c)))
                .OrderByDescending(m => Math.Abs(m.Delta)).Take(3)
                .Select(m => F($"{m.Component} {m.Delta:+0.000;-0.000} ms"));
            var cpu = TooFewRequests(e) || TooFewRequests(b.Evidence)
                ? F($"CPU not compared (too few requests completed while tracing: {b.Evidence.Requests} and {e.Requests})")
                : e.CpuMsPerRequest.Count > 0 && b.Evidence.CpuMsPerRequest.Count > 0
                ? F($"CPU {Total(b.Evidence):F3} -> {Total(e):F3} ms per request ({string.Join(", ", moves)})")
                : "CPU not compared (a trace without enough CPU samples)";
            var message = F($"against {baseline}: {cpu}; ")
                + Wait("database", b.Evidence.DatabaseMsPerRequest, e.DatabaseMsPerRequest)
                + Wait("; blocking waits", b.Evidence.BlockingWaitMsPerRequest, e.BlockingWaitMsPerRequest)
                + Wait("; lock-blocked", b.Evidence.LockBlockedMsPerRequest, e.LockBlockedMsPerRequest);
            var strong = e.CpuSamples >= TraceFindings.StrongCpuSamples && b.Evidence.CpuSamples >= TraceFindings.StrongCpuSamples;
            yield return new Finding(v, FindingKind.CpuBreakdown, message,
                "Where the change comes from, component by component: see \"Where the time goes\".",
                F($"traced {e.TracedSeconds:F1} s ({e.Requests} requests, {e.CpuSamples} CPU samples) ")
                    + F($"against {b.Evidence.TracedSeconds:F1} s ({b.Evidence.Requests} requests, {b.Evidence.CpuSamples} samples)"),
                "per request", strong ? EvidenceStrength.Strong : EvidenceStrength.Weak);
        }
    }

    private static bool TooFewRequests(VariantEvidence e) => e.Requests < TraceFindings.MinRequests;

    // The trace finding's message ends with its advice, after the last "; ".
    private static string Advice(string message) => message[(message.LastIndexOf("; ", StringComparison.Ordinal) + 2)..];

    private static double Ms(IReadOnlyDictionary<string, double> byComponent, string component) =>
        byComponent.TryGetValue(component, out var ms) && double.IsFinite(ms) ? ms : 0;

    private static double Total(VariantEvidence e) => e.CpuMsPerRequest.Values.Where(double.IsFinite).Sum();

    private static string Wait(string what, double? from, double? to) =>
        from is { } a && to is { } b && double.IsFinite(a) && double.IsFinite(b)
            ? F($"{what} {a:F2} -> {b:F2} ms")
            : F($"{what} not measured");

    private static string F(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
