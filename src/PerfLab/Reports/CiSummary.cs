using System.Text.Json;
using System.Text.Json.Serialization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// What CI reads of a run or a comparison of two result folders, compact: every verdict with its change and 95 %
/// interval, every claim against its seed, every gate, and what failed or could not run by design. `--json` prints it,
/// the JUnit and step-summary writers render it; results.json keeps everything else.
/// </summary>
public sealed record CiSummary(
    string Verb,
    string Outcome,
    int ExitCode,
    IReadOnlyList<CiChange> Changes,
    IReadOnlyList<CiClaim> Claims,
    IReadOnlyList<ThresholdCheck> Gates,
    IReadOnlyList<CiProblem> Problems)
{
    /// <summary>Where the full reports were written (a result folder, or the comparison's files); empty when none.</summary>
    public IReadOnlyList<string> Reports { get; init; } = [];

    /// <summary>
    /// Seconds measured (the windows of successful runs) per experiment and per "experiment / variant": JUnit's times.
    /// Not in the JSON line, which carries verdicts, not durations.
    /// </summary>
    [JsonIgnore]
    public IReadOnlyDictionary<string, double> MeasuredSeconds { get; init; } = new Dictionary<string, double>();

    /// <summary>The seconds measured for <paramref name="key"/> ("experiment" or "experiment / variant"), 0 when none.</summary>
    public double SecondsOf(string key) => MeasuredSeconds.GetValueOrDefault(key);

    /// <summary>Measured seconds of every experiment and variant in <paramref name="results"/>.</summary>
    private static Dictionary<string, double> Measured(IEnumerable<RunResults> results)
    {
        var into = new Dictionary<string, double>();
        foreach (var e in results.SelectMany(r => r.Experiments))
        {
            foreach (var run in e.Runs.Where(r => r.Status == RunStatus.Ok))
            {
                // A burst or an upload ends when its batches are done: its measured time is theirs, the duration only a cap.
                var seconds = run.BatchTimesMs.Count > 0 ? run.BatchTimesMs.Sum() / 1000 : e.Duration.TotalSeconds;
                into[e.Name] = into.GetValueOrDefault(e.Name) + seconds;
                into[$"{e.Name} / {run.Variant}"] = into.GetValueOrDefault($"{e.Name} / {run.Variant}") + seconds;
            }
        }
        return into;
    }

    /// <summary>
    /// A run's better or worse verdicts that its changes above would hide: a single scenario's, or a figure's beside the
    /// deciding one, that differs from its variant's verdict (the summary's second table); empty for compare-results.
    /// </summary>
    public IReadOnlyList<CiChange> Differing { get; init; } = [];

    public static JsonSerializerOptions JsonOptions { get; } = CreateOptions();

    /// <summary>One line of JSON: what a CI step pipes into jq.</summary>
    public string ToJson() => JsonSerializer.Serialize(this, JsonOptions);

    /// <summary>
    /// The summary's lines of a run (per variant the deciding comparison, then the headline figures beside it), its
    /// claims, gates and failed runs.
    /// </summary>
    public static CiSummary Of(RunResults results, string verb, int exitCode)
    {
        var changes = SummaryContent.Lines(results).Where(l => l.Deciding is not null).SelectMany(l =>
            l.Beside.Select(c => Change(l, c, decides: false)).Prepend(Change(l, l.Deciding!, decides: true)));
        var claims = results.Experiments.SelectMany(e => e.Claims.Select(c => new CiClaim(e.Name, c.Claim, c.SeedFigure, c.OurFigure,
            Fmt.Holds(c), c.Note)));
        var differing = SummaryTable.HiddenComparisons(results).Select(h => new CiChange(h.Experiment, h.Comparison.Variant, h.Baseline,
            h.Comparison.Scenario, h.Comparison.Metric, h.Comparison.ChangePercent, h.Comparison.LowPercent, h.Comparison.HighPercent,
            Fmt.Verdict(h.Comparison.Verdict)) { Decides = false });
        return new CiSummary(verb, OutcomeOf(exitCode), exitCode, [.. changes], [.. claims], results.Thresholds, ProblemsOf(results))
        {
            MeasuredSeconds = Measured([results]),
            Differing = [.. differing],
        };
    }

    private static CiChange Change(SummaryLine line, Comparison c, bool decides) =>
        new(line.Experiment, c.Variant, line.Baseline, c.Scenario, c.Metric, c.ChangePercent, c.LowPercent, c.HighPercent,
            Fmt.Verdict(c.Verdict))
        {
            Decides = decides,
        };

    /// <summary>Every figure of `compare-results` (B against A) and its gates.</summary>
    public static CiSummary Of(ResultsComparison comparison, int exitCode)
    {
        var changes = comparison.Figures.Select(f => new CiChange(f.Experiment, f.Variant, comparison.LabelA, f.Scenario, f.Metric,
            f.ChangePercent, f.LowPercent, f.HighPercent, Fmt.Verdict(f.Verdict)));
        var problems = comparison.WithoutData.Select(w => new CiProblem("", "", "no data", w, 0));
        return new CiSummary("compare-results", OutcomeOf(exitCode), exitCode, [.. changes], [], comparison.Thresholds, [.. problems])
        {
            MeasuredSeconds = Measured([comparison.A, comparison.B]),
        };
    }

    /// <summary>"passed", "gates failed", "failed", "interrupted", "usage error" ...: the exit code in words.</summary>
    public static string OutcomeOf(int exitCode) => exitCode switch
    {
        0 => "passed",
        1 => "failed",
        2 => "usage error",
        3 => "environment error",
        4 => "unreachable",
        5 => "gates failed",
        130 => "interrupted",
        _ => "failed",
    };

    /// <summary>Per experiment and variant: runs that failed, and runs that could not run by design (not applicable).</summary>
    private static List<CiProblem> ProblemsOf(RunResults results)
    {
        var problems = new List<CiProblem>();
        foreach (var e in results.Experiments)
        {
            foreach (var group in e.Runs.Where(r => r.Status != RunStatus.Ok).GroupBy(r => (r.Variant, NotApplicable.Reason(e, r))))
            {
                var first = group.First();
                var (kind, reason) = group.Key.Item2 is { } why ? ("not applicable", why) : ("failed", first.FailureReason ?? "failed");
                problems.Add(new CiProblem(e.Name, group.Key.Variant, kind, reason, group.Count()));
            }
        }
        if (results.Incomplete)
        {
            problems.Add(new CiProblem("", "", "incomplete", results.IncompleteReason ?? "the run stopped early", 0));
        }
        return problems;
    }

    private static JsonSerializerOptions CreateOptions()
    {
        var options = new JsonSerializerOptions(JsonSerializerDefaults.Web)
        {
            // NaN (no interval) is written as null: CI tools' JSON readers reject NaN.
            NumberHandling = JsonNumberHandling.Strict,
            Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        };
        options.Converters.Add(new FiniteOrNull());
        options.MakeReadOnly(populateMissingResolver: true);
        return options;
    }

    private sealed class FiniteOrNull : JsonConverter<double>
    {
        public override bool HandleNull => true;

        public override double Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            reader.TokenType == JsonTokenType.Null ? double.NaN : reader.GetDouble();

        public override void Write(Utf8JsonWriter writer, double value, JsonSerializerOptions options)
        {
            if (double.IsFinite(value))
            {
                writer.WriteNumberValue(Math.Round(value, 2));
            }
            else
            {
                writer.WriteNullValue();
            }
        }
    }
}

/// <summary>A variant against the baseline (or B against A) on one metric: the change, its 95 % interval and the verdict.</summary>
public sealed record CiChange(string Experiment, string Variant, string Against, string Scenario, Metric Metric,
    double ChangePercent, double LowPercent, double HighPercent, string Verdict)
{
    /// <summary>
    /// A run's change: true for the figure that decides the variant's verdict, false for one shown beside it; null for
    /// compare-results.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public bool? Decides { get; init; }
}

/// <summary>A seed's claim beside our figure: holds, contrary, equivalent or inconclusive.</summary>
public sealed record CiClaim(string Experiment, string Claim, string SeedFigure, string OurFigure, string Result, string Note);

/// <summary>
/// Runs of a variant that failed ("failed"), could not run by
/// design ("not applicable"), or a run cut short ("incomplete").
/// </summary>
public sealed record CiProblem(string Experiment, string Variant, string Kind, string Reason, int Runs);
