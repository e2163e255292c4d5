using PerfLab.Results;

namespace PerfLab.Reports;

// What a report says, independent of Markdown or HTML: the provenance, the per-experiment tables and the seed
// reproduction table. Only selects and formats figures; the runner computed them.
internal static class ReportContent
{
    public const string IntervalNote =
        "Figures are medians over the repetitions with their 95 % interval in brackets, e.g. `408.4 [395.1–420.0]`; " +
        "(n=1) marks a figure from a single successful run.";

    /// <summary>The tail-latency columns: every compared latency but the mean (which the throughput table shows).</summary>
    private static IReadOnlyList<Metric> TailMetrics => [.. Metrics.Compared.Where(m => m.Unit == "ms" && m != Metrics.MeanMs)];

    public static ReportTable Provenance(RunResults results)
    {
        var p = results.Provenance;
        var layout = p.CoreLayout;
        var pinned = $"SUT: {layout.Sut ?? "not pinned"}; generator: {layout.Generator ?? "not pinned"}; " +
                     $"database: {layout.Database ?? "not pinned"}";
        if (!string.IsNullOrWhiteSpace(layout.Note))
        {
            pinned += $" ({layout.Note})";
        }
        var rows = new List<IReadOnlyList<Cell>>
        {
            Row("started", Fmt.Timestamp(results.StartedAt)),
            Row("finished", $"{Fmt.Timestamp(results.FinishedAt)} ({Fmt.Duration(results.FinishedAt - results.StartedAt)})"),
            Row("commit", new Cell(p.Commit, Code: true)),
            Row("SDK / runtime", $"{p.SdkVersion} / {p.RuntimeVersion}"),
            Row("CPU", $"{p.CpuModel}, {Fmt.Int(p.LogicalCores)} logical cores"),
            Row("OS", p.OperatingSystem),
            Row("core layout", pinned),
            Row("database", p.DatabaseState is { } state ? $"{p.Database}; {state.Describe()}" : p.Database),
            Row("profile", new Cell(p.Profile, Code: true)),
            Row("repetitions", Fmt.Int(p.Repetitions) + " per variant, variants interleaved"),
        };
        if (p.Hosts is { Count: > 0 } hosts)
        {
            rows.Add(Row("hosts", string.Join("; ", hosts.Select(h =>
                $"{h.Role}: {h.Host} ({h.Address}, {Fmt.Int(h.Cores)} cores, " +
                $"clock {Fmt.Signed(h.ClockOffsetMs, 3)} ms ± {Fmt.Num(h.ClockUncertaintyMs, 3)})"))));
        }
        if (p.AaMode)
        {
            rows.Add(Row("A/A mode", "yes: the baseline measured against itself (every difference called is a false positive)"));
        }
        return new ReportTable([new("", Align.Left), new("", Align.Left)], rows);
    }

    public static string VariantLabel(ExperimentResult experiment, string variant) =>
        variant == experiment.Baseline ? $"{variant} (baseline)" : variant;

    /// <summary>The seed article's table: RPS and mean latency per scenario, then all scenarios' RPS.</summary>
    public static ReportTable Throughput(ExperimentResult experiment)
    {
        var columns = new List<Column> { new("variant", Align.Left) };
        foreach (var scenario in experiment.Scenarios)
        {
            columns.Add(new($"{scenario} (RPS)"));
            columns.Add(new($"{scenario} mean (ms)"));
        }
        columns.Add(new("all (RPS)"));
        var hasBatches = experiment.Summaries.Any(s => s.BatchMeanMs is not null);
        if (hasBatches)
        {
            columns.Add(new("time per batch (ms)"));
        }

        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var variant in experiment.Variants)
        {
            var summary = Summaries.Of(experiment, variant);
            var row = new List<Cell> { VariantCell(experiment, variant, summary) };
            foreach (var scenario in experiment.Scenarios)
            {
                row.Add(Fmt.Est(Summaries.Estimate(summary, scenario, Metrics.Rps), Metrics.Rps.Decimals));
                row.Add(Fmt.Est(Summaries.Estimate(summary, scenario, Metrics.MeanMs), Metrics.MeanMs.Decimals));
            }
            row.Add(Fmt.Est(summary?.AllRps, 1));
            if (hasBatches)
            {
                row.Add(Fmt.Est(summary?.BatchMeanMs, 2));
            }
            rows.Add(row);
        }
        return new ReportTable(columns, rows);
    }

    /// <summary>p90 and p99 per scenario; in the open model also the p99 from the actual send time (not corrected).</summary>
    public static ReportTable TailLatency(ExperimentResult experiment)
    {
        var uncorrected = experiment.Scenarios
            .Where(s => OkRuns(experiment).Any(r => r.Scenarios.Any(x => x.Scenario == s && x.UncorrectedP99Ms is not null)))
            .ToHashSet();
        var columns = new List<Column> { new("variant", Align.Left) };
        foreach (var scenario in experiment.Scenarios)
        {
            columns.AddRange(TailMetrics.Select(m => new Column($"{scenario} {m.Header}")));
            if (uncorrected.Contains(scenario))
            {
                columns.Add(new($"{scenario} p99 uncorrected (ms)"));
            }
        }

        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var variant in experiment.Variants)
        {
            var summary = Summaries.Of(experiment, variant);
            var row = new List<Cell> { VariantCell(experiment, variant, summary) };
            foreach (var scenario in experiment.Scenarios)
            {
                row.AddRange(TailMetrics.Select(m => new Cell(Fmt.Est(Summaries.Estimate(summary, scenario, m), m.Decimals))));
                if (uncorrected.Contains(scenario))
                {
                    var values = OkRuns(experiment).Where(r => r.Variant == variant)
                        .SelectMany(r => r.Scenarios)
                        .Where(x => x.Scenario == scenario && x.UncorrectedP99Ms is not null)
                        .Select(x => x.UncorrectedP99Ms!.Value)
                        .ToList();
                    row.Add(values.Count == 0
                        ? Fmt.Missing
                        : $"{Fmt.Num(Statistics.Median(values), 2)} (median of {Fmt.Int(values.Count)})");
                }
            }
            rows.Add(row);
        }
        return new ReportTable(columns, rows);
    }

    public static ReportTable Counters(ExperimentResult experiment)
    {
        var columns = new List<Column> { new("variant", Align.Left) };
        columns.AddRange(Metrics.CounterColumns.Select(c => new Column(c.Header)));
        columns.Add(new("starvation injections"));

        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var variant in experiment.Variants)
        {
            var summary = Summaries.Of(experiment, variant);
            var row = new List<Cell> { VariantCell(experiment, variant, summary) };
            foreach (var counter in Metrics.CounterColumns)
            {
                row.Add(Fmt.Est(summary?.Counters.GetValueOrDefault(counter.Key), counter.Decimals, counter.Scale));
            }
            row.Add(StarvationInjections(experiment, variant));
            rows.Add(row);
        }
        return new ReportTable(columns, rows);
    }

    public static ReportTable Efficiency(ExperimentResult experiment)
    {
        var columns = new List<Column> { new("variant", Align.Left) };
        columns.AddRange(Metrics.Efficiency.Select(c => new Column(c.Header)));
        var rows = new List<IReadOnlyList<Cell>>();
        foreach (var variant in experiment.Variants)
        {
            var summary = Summaries.Of(experiment, variant);
            var row = new List<Cell> { VariantCell(experiment, variant, summary) };
            foreach (var efficiency in Metrics.Efficiency)
            {
                row.Add(Fmt.Est(summary?.Efficiency.GetValueOrDefault(efficiency.Key), efficiency.Decimals));
            }
            rows.Add(row);
        }
        return new ReportTable(columns, rows);
    }

    public const string VerdictLegend =
        "Better or worse: the change's 95 % interval excludes zero and the change exceeds the noise floor (this machine's " +
        "A/A spread: the 95th percentile of |change| over its recorded `--aa` runs of the metric, 5 % until 5 are recorded). " +
        "Equivalent: the whole interval lies within ± the margin (`margin:` or `--margin`, default 5 %; an equivalence test, " +
        "as TOST). Inconclusive: anything else; the verdict says what would decide it. Paired: within interleaved blocks, so " +
        "drift that hits a whole block cancels; \"interval of its slots\": its blocks agreed more closely than the slots inside " +
        "them allow, so the interval is as wide as the slots' spread makes it.";

    public static ReportTable Comparisons(ExperimentResult experiment)
    {
        var rows = experiment.Comparisons.Select(c => (IReadOnlyList<Cell>)
        [
            new Cell(c.Variant),
            new Cell(c.Scenario),
            new Cell(Fmt.Metric(c.Metric)),
            new Cell(Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)),
            new Cell($"±{Fmt.Num(c.NoiseFloorPercent, 1)} %" + (c.EquivalenceMarginPercent is { } m ? $" / ±{Fmt.Num(m, 1)} %" : "")
                + $" ({c.NoiseFloorSource})"),
            new Cell(c.MinimumDetectableEffectPercent is { } mde ? $"±{Fmt.Num(mde, 1)} %" : Fmt.Missing),
            new Cell(c.Method == "paired"
                ? $"paired, {Fmt.Int(c.Pairs)} blocks" + (c.IntervalFromSlots ? ", interval of its slots" : "")
                : "Welch"),
            c.ToDecide is { } toDecide ? new Cell($"{Fmt.Verdict(c.Verdict)}: to decide, {toDecide}") : VerdictCell(c.Verdict),
        ]).ToList();
        return new ReportTable(
            [new("variant", Align.Left), new("scenario", Align.Left), new("metric", Align.Left), new("change vs baseline"),
             new("noise floor / margin"), new("smallest detectable"), new("method", Align.Left), new("verdict", Align.Left)],
            rows);
    }

    /// <summary>How a finding only counters suggest is labelled: no trace named the place.</summary>
    public const string WeakEvidence = "weak evidence: counters only";

    /// <summary>How a traced finding that rests on few events or samples is labelled.</summary>
    public const string FewEvents = "weak evidence: few events in the trace";

    public static ReportTable Findings(ExperimentResult experiment)
    {
        var rows = experiment.Findings.Select(f => (IReadOnlyList<Cell>)
        [
            new Cell(f.Variant),
            new Cell(f.Title ?? Fmt.FindingKind(f.Kind), Strong: true),
            f.Place is { Length: > 0 } place ? new Cell(place, Code: true) : new Cell(Fmt.Missing),
            new Cell(f.Message),
            new Cell(f.Strength == EvidenceStrength.Weak ? $"{f.Evidence} ({(f.Place is null ? WeakEvidence : FewEvents)})" : f.Evidence),
            new Cell(f.Recommendation),
        ]).ToList();
        return new ReportTable(
            [new("variant", Align.Left), new("finding", Align.Left), new("place", Align.Left), new("what was seen", Align.Left),
             new("evidence", Align.Left), new("recommendation", Align.Left)],
            rows);
    }

    /// <summary>What the seed-reproduction table's "outcome" column means, in each writer's own emphasis.</summary>
    public static string HoldsLegend(Func<string, string> strong, Func<string, string> em) =>
        $"Each claim of a seed article beside our figure. {em("outcome")} is {strong("holds")} when our change goes the article's way " +
        $"and clears the noise floor, {strong("contrary")} when it clears it the other way, {strong("equivalent")} when the whole 95 % " +
        $"interval lies within ± the margin (no change worth the claim), {em("inconclusive")} when the interval is too wide to " +
        "tell (the note says what would decide it) or there is no figure.";

    public static ReportTable SeedReproduction(RunResults results)
    {
        var rows = results.Experiments
            .SelectMany(e => e.Claims.Select(c => (IReadOnlyList<Cell>)
            [
                new Cell(c.Seed),
                new Cell(e.Name, Code: true),
                // A claim whose experiment's trace found a strong blocking call links to it: the call explains the claim.
                new Cell(c.Claim, Link: TimeContent.Lead(e) is not null ? "#" + TimeContent.LeadAnchor(e) : null),
                new Cell(c.SeedFigure),
                new Cell(c.OurFigure),
                new Cell(Fmt.Holds(c), Strong: c.Outcome != ClaimOutcome.Inconclusive),
                new Cell(c.Note),
            ]))
            .ToList();
        return new ReportTable(
            [new("seed", Align.Left), new("experiment", Align.Left), new("claim", Align.Left), new("seed figure"),
             new("our figure"), new("outcome", Align.Left), new("note", Align.Left)],
            rows);
    }

    public static string RunsLine(ExperimentResult experiment)
    {
        var ok = experiment.Runs.Count(r => r.Status == RunStatus.Ok);
        var failed = experiment.Runs.Count(r => r.Status == RunStatus.Failed);
        var line = $"{Fmt.Int(experiment.Runs.Count)} runs: {Fmt.Int(ok)} ok, {Fmt.Int(failed)} failed";
        var measured = experiment.Runs.Where(r => r.Status == RunStatus.Ok).ToList();
        if (measured.Count > 0)
        {
            var saturated = measured.Count(r => r.GeneratorSaturated);
            line += $". Load generator CPU at most {Fmt.Num(measured.Max(r => r.GeneratorCpuPercent), 0)} % of one core" +
                    (saturated == 0
                        ? ", never saturated."
                        : $", saturated in {Fmt.Int(saturated)} of them: those figures understate the SUT.");
        }
        else
        {
            line += ".";
        }
        return line;
    }

    public static IEnumerable<RunRecord> FailedRuns(ExperimentResult experiment) =>
        experiment.Runs.Where(r => r.Status != RunStatus.Ok).OrderBy(r => r.Order);

    public static IEnumerable<RunRecord> OkRuns(ExperimentResult experiment) =>
        experiment.Runs.Where(r => r.Status == RunStatus.Ok);

    /// <summary>A stable anchor for an experiment heading (HTML ids, Markdown links).</summary>
    public static string Anchor(ExperimentResult experiment) =>
        new string(experiment.Name.ToLowerInvariant().Select(c => char.IsAsciiLetterOrDigit(c) ? c : '-').ToArray());

    private static Cell VerdictCell(Verdict verdict) =>
        new(Fmt.Verdict(verdict), Strong: verdict is Verdict.Better or Verdict.Worse);

    private static Cell VariantCell(ExperimentResult experiment, string variant, VariantSummary? summary) =>
        summary is null || summary.SuccessfulRuns == 0
            ? new Cell(VariantLabel(experiment, variant) + " — no successful run")
            : new Cell(VariantLabel(experiment, variant));

    // A count per run from the thread-pool adjustment events. The counter of the same name in the summaries is a
    // per-second average, a different figure, so the runs' own counts are summarized here.
    private static string StarvationInjections(ExperimentResult experiment, string variant)
    {
        var perRun = OkRuns(experiment).Where(r => r.Variant == variant).Select(r => (double)r.StarvationInjections).ToList();
        if (perRun.Count == 0)
        {
            return Fmt.Missing;
        }
        var median = Statistics.Median(perRun);
        return $"{Fmt.Num(median, median % 1 == 0 ? 0 : 1)} per run (max {Fmt.Num(perRun.Max(), 0)})";
    }

    private static IReadOnlyList<Cell> Row(string label, Cell value) => [new Cell(label, Strong: true), value];
}
