using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// "Where the time goes", shown by both writers when an experiment carries evidence from traces: the CPU
/// per request by component, the time per request spent waiting (database, locks, blocking waits), the GC's shares, the
/// database client's own figures, and the call sites that blocked. Nothing here when the result has no evidence.
/// </summary>
internal static class TimeContent
{
    /// <summary>The components of <see cref="VariantEvidence.CpuMsPerRequest"/>, in the order they are stacked and listed.</summary>
    public static readonly (string Key, string Label)[] Components =
    [
        ("Gc", "GC"), ("Json", "JSON"), ("Database", "database client"), ("AspNetCore", "ASP.NET Core"),
        ("Logging", "logging"), ("App", "app code"), ("Other", "other"),
    ];

    public const string Note =
        "From an EventPipe trace of one run per variant: CPU milliseconds per completed request by component (1 ms samples), " +
        "then the time per request spent waiting. Waits overlap CPU and one another (a blocked thread may be waiting on the " +
        "database), so the rows do not add up to the latency.";

    /// <summary>The known components, then any other the evidence names (a newer trace analysis), so every CPU figure shows.</summary>
    public static IReadOnlyList<(string Key, string Label)> ComponentsOf(IReadOnlyList<VariantEvidence> evidence) =>
        [.. Components, .. evidence.SelectMany(e => e.CpuMsPerRequest.Keys).Distinct()
            .Where(k => Components.All(c => c.Key != k)).Order(StringComparer.Ordinal).Select(k => (k, k))];

    public static bool HasEvidence(ExperimentResult experiment) => Evidence(experiment).Count > 0;

    /// <summary>The variants with evidence, in the experiment's variant order.</summary>
    public static IReadOnlyList<VariantEvidence> Evidence(ExperimentResult experiment) =>
        experiment.Variants
            .Select(v => experiment.Evidence.FirstOrDefault(e => e.Variant == v))
            .OfType<VariantEvidence>()
            .ToList();

    /// <summary>One column per traced variant, one row per figure.</summary>
    public static ReportTable Breakdown(ExperimentResult experiment)
    {
        var evidence = Evidence(experiment);
        var rows = new List<IReadOnlyList<Cell>>
        {
            Row("traced run", evidence, e =>
                $"repetition {Fmt.Int(e.Repetition)}, {Fmt.Num(e.TracedSeconds, 0)} s, {Fmt.Int(e.Requests)} requests"),
        };
        foreach (var (key, label) in ComponentsOf(evidence))
        {
            rows.Add(Row($"CPU ms/req: {label}", evidence, e => Ms(e.CpuMsPerRequest.TryGetValue(key, out var v) ? v : null)));
        }
        rows.Add(Row("CPU ms/req: total", evidence, e => Ms(e.CpuMsPerRequest.Count > 0 ? e.CpuMsPerRequest.Values.Sum() : null),
            strong: true));
        rows.Add(Row("database ms/req (client)", evidence, e => Ms(e.DatabaseMsPerRequest)));
        rows.Add(Row("lock-blocked ms/req", evidence, e => Ms(e.LockBlockedMsPerRequest)));
        rows.Add(Row("blocking-wait ms/req", evidence, e => Ms(e.BlockingWaitMsPerRequest)));
        if (evidence.Any(e => e.BlockedThreadsAtOnce is not null))
        {
            rows.Add(Row("pool threads blocked at once", evidence, e => e.BlockedThreadsAtOnce is { } n ? Fmt.Num(n, 1) : Fmt.Missing));
        }
        rows.Add(Row("GC pause share", evidence, e => Percent(e.GcPauseShare)));
        rows.Add(Row("GC CPU share", evidence, e => Percent(e.GcCpuShare)));
        return new ReportTable(
            [new("", Align.Left), .. evidence.Select(e => new Column(ReportContent.VariantLabel(experiment, e.Variant)))],
            rows);
    }

    /// <summary>The database client's figures per variant, the median over its successful runs; null when no run has them.</summary>
    public static ReportTable? DatabaseClient(ExperimentResult experiment)
    {
        var runs = ReportContent.OkRuns(experiment).Where(r => r.Database is not null).ToList();
        if (runs.Count == 0)
        {
            return null;
        }
        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var variant in experiment.Variants)
        {
            var stats = runs.Where(r => r.Variant == variant).Select(r => r.Database!).ToList();
            if (stats.Count == 0)
            {
                continue;
            }
            string M(Func<DatabaseClientStats, double> pick, int decimals) =>
                Fmt.Num(Statistics.Median(stats.Select(pick).ToList()), decimals);
            rows.Add(
            [
                ReportContent.VariantLabel(experiment, variant), M(s => s.CommandsPerRequest, 2), M(s => s.CommandMsPerRequest, 3),
                M(s => s.ConnectionsBusyMean, 1), M(s => s.ConnectionsIdleMean, 1), M(s => s.PendingConnectionRequestsMean, 2),
                Fmt.Int(stats.Count),
            ]);
        }
        return new ReportTable(
            [new("variant", Align.Left), new("commands/req"), new("command ms/req"), new("connections busy"),
             new("connections idle"), new("waiting for a connection"), new("runs")],
            rows);
    }

    public const string DatabaseNote =
        "The database client's metrics (Npgsql), averaged over each run's measured window, then the median over runs.";

    /// <summary>
    /// Every contended lock and blocking wait of every traced variant, largest blocked time first within each; the
    /// <see cref="Lead"/> is shown first on its own, so it is not among them.
    /// </summary>
    public static IReadOnlyList<BlockingSite> CallSites(ExperimentResult experiment)
    {
        var lead = Lead(experiment);
        return Evidence(experiment)
            .SelectMany(e => e.Contention.Select(c => new BlockingSite(e.Variant, "lock contention", c))
                .Concat(e.BlockingWaits.Select(c => new BlockingSite(e.Variant, c.Call ?? "blocking wait", c)))
                .OrderByDescending(s => s.Site.TotalMs))
            .Where(s => s != lead)
            .ToList();
    }

    /// <summary>
    /// The blocking call that costs most per request, among the variants whose trace made a strong finding of a blocking
    /// call (it explains most of their requests' time): the evidence leads with it and the experiment's seed claims link
    /// to it. Null when no trace found one.
    /// </summary>
    public static BlockingSite? Lead(ExperimentResult experiment)
    {
        var strong = experiment.Findings.Where(f => f.Kind == FindingKind.SyncOverAsync && f.Strength == EvidenceStrength.Strong)
            .Select(f => f.Variant).ToHashSet();
        return Evidence(experiment).Where(e => strong.Contains(e.Variant))
            .SelectMany(e => e.BlockingWaits.Select(c => new BlockingSite(e.Variant, c.Call ?? "blocking wait", c)))
            .Where(s => s.Site.MsPerRequest is > 0)
            .MaxBy(s => s.Site.MsPerRequest);
    }

    /// <summary>The fragment both writers give the lead, so a claim can link to it.</summary>
    public static string LeadAnchor(ExperimentResult experiment) => "blocking-" + ReportContent.Anchor(experiment);

    /// <summary>"Costliest blocking call: Thread.Sleep() in Handler, 150.2 ms per request (sync). Fix: await Task.Delay
    /// instead.", the names through <paramref name="code"/>.</summary>
    public static string DescribeLead(BlockingSite lead, Func<string, string> code) =>
        $"Costliest blocking call: {code(lead.Kind)} in {code(lead.Site.Method)}, {Fmt.Num(lead.Site.MsPerRequest ?? 0, 1)} ms per "
            + $"request ({lead.Variant})."
            + (lead.Site.Advice is { Length: > 0 } advice ? $" Fix: {advice}." : "");

    /// <summary>"variant: blocking wait in Method, 12 times, 3.4 ms blocked in all", the method through <paramref name="code"/>.</summary>
    public static string Describe(BlockingSite site, Func<string, string> code) =>
        $"{site.Variant}: {site.Kind} in {code(site.Site.Method)}, {Fmt.Int(site.Site.Count)} "
            + $"times, {Fmt.Num(site.Site.TotalMs, 1)} ms blocked in all";

    private static IReadOnlyList<Cell> Row(string label, IReadOnlyList<VariantEvidence> evidence, Func<VariantEvidence, string> value,
        bool strong = false) =>
        [new Cell(label, Strong: strong), .. evidence.Select(e => new Cell(value(e), Strong: strong))];

    // Three decimals for the CPU components, fewer where waits run to hundreds of milliseconds.
    private static string Ms(double? value) => value is { } v
        ? Fmt.Num(v, Math.Abs(v) >= 100 ? 1 : Math.Abs(v) >= 10 ? 2 : 3)
        : Fmt.Missing;

    private static string Percent(double? share) => share is { } s ? Fmt.Num(s * 100, 1) + " %" : Fmt.Missing;
}

/// <summary>A call site that blocked, with the variant whose trace shows it.</summary>
internal sealed record BlockingSite(string Variant, string Kind, CallSite Site);
