using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

public static class RunCommand
{
    public static Command Create()
    {
        var o = new RunOptions();
        var command = new Command("run", "Run experiments against the SUT (or the app an experiment file names) and write report.md, report.html and results.json.");
        command.Arguments.Add(o.Names);
        foreach (var option in new Option[] { o.Profile, o.Repeat, o.Precision, o.Budget, o.Output, o.Aa, o.Pin, o.Trace, o.KeepTraces, o.Thresholds, o.Connection, o.DataDir, o.Folder })
        {
            command.Options.Add(option);
        }
        o.Ci.AddTo(command);
        command.SetAction((parse, ct) => RunAsync(parse, o, ct));
        return command;
    }

    private sealed class RunOptions
    {
        public Argument<string[]> Names { get; } = new("experiments")
        {
            Description = "Experiments to run (default: all; see `perflab list`).",
            Arity = ArgumentArity.ZeroOrMore,
        };

        public Option<string> Profile { get; } = ProfileOption();

        public Option<int?> Repeat { get; } = RepeatOption();

        public Option<string?> Output { get; } = new("--out", "-o") { Description = "Output folder (default: results/<timestamp>); never overwritten." };

        public Option<bool> Aa { get; } = new("--aa")
        {
            Description = "A/A run: the baseline against itself, to measure this machine's noise floor (recorded and used by later runs).",
        };

        public Option<bool?> Pin { get; } = new("--pin")
        {
            Description = "Pin the SUT, generator and PostgreSQL to separate CPUs (default: only with 4 or more cores); --pin false to never pin.",
        };

        public Option<double?> Precision { get; } = RunTuningOptions.Precision();

        public Option<bool?> Trace { get; } = new("--trace")
        {
            Description = "After each variant's first measured window, trace it for 5 s more (CPU stacks, locks, GC; never during the window) to explain the verdicts (default: on, except the smoke profile); --trace false to skip.",
        };

        public Option<bool> KeepTraces { get; } = new("--keep-traces")
        {
            Description = "Keep each traced run's .nettrace (10-15 MB each; open with `perflab trace report` or PerfView) beside its speedscope file.",
        };

        public Option<string[]> Thresholds { get; } = ThresholdOptions.Create(
            "A CI gate checked after the run, on every experiment (beside its file's thresholds:), e.g. \"p99<250ms\", \"errors<1%\", \"change>-5%\" (RPS against the baseline), \"no-worse\"; repeatable. A failing gate exits with 5.");

        public Option<TimeSpan?> Budget { get; } = RunTuningOptions.Budget();

        public OutputOptions Ci { get; } = new();

        public Option<string?> Connection { get; } = DbOptions.ConnectionString();

        public Option<string?> DataDir { get; } = DbOptions.DataDir();

        public Option<string?> Folder { get; } = ExperimentOptions.Folder();

        private static Option<string> ProfileOption()
        {
            var profile = new Option<string>("--profile", "-p")
            {
                Description = "Durations and repetitions: article (the seed's own), quick (the default: adaptive where it matters, within --budget), smoke (about 2 min, for CI).",
                DefaultValueFactory = _ => "quick",
            };
            profile.AcceptOnlyFromAmong([.. ExperimentLoader.ProfileNames]);
            return profile;
        }

        private static Option<int?> RepeatOption()
        {
            var repeat = new Option<int?>("--repeat", "-r") { Description = "Repetitions (interleaved blocks) per variant; the minimum when a precision is set (default: the profile's)." };
            repeat.Check(v => v is null or (>= 1 and <= 100), "--repeat must be from 1 to 100.");
            return repeat;
        }
    }

    private static async Task<int> RunAsync(ParseResult parse, RunOptions o, CancellationToken ct)
    {
        var all = ExperimentLoader.LoadFolder(parse.GetValue(o.Folder) ?? ExperimentLoader.DefaultFolder);
        var selected = Select(all, parse.GetValue(o.Names) ?? []);
        var gates = ThresholdOptions.Parse(parse.GetValue(o.Thresholds));
        ThresholdOptions.EnsureScenariosExist(gates, selected.SelectMany(e => e.Scenarios.Select(s => s.Name)));
        return await RunSelectedAsync(selected, new RunChoices(parse.GetValue(o.Profile)!, parse.GetValue(o.Repeat), parse.GetValue(o.Aa),
            parse.GetValue(o.Output), parse.GetValue(o.Pin), parse.GetValue(o.Precision), RunTuningOptions.BudgetOf(parse, o.Budget), parse.GetValue(o.Trace),
            parse.GetValue(o.KeepTraces), parse.GetValue(o.Connection), parse.GetValue(o.DataDir)) { Gates = gates, Outputs = o.Ci.Begin(parse, "run") }, ct);
    }

    /// <summary>Runs the given experiments (from files, or built from `perflab compare`'s command line) and writes the reports.</summary>
    internal static async Task<int> RunSelectedAsync(IReadOnlyList<ExperimentDefinition> selected, RunChoices choices, CancellationToken ct)
    {
        var outDir = Path.GetFullPath(choices.Output ?? Path.Combine("results", DateTime.Now.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture)));
        if (Directory.Exists(outDir) || File.Exists(outDir))
        {
            throw new PerfLabException($"the output folder {outDir} already exists; results are never overwritten. Choose another --out.", ExitCode.Usage);
        }

        var layout = RunEnvironment.PlanLayout(choices.Pin);
        var conditions = ConditionsOf(selected);
        RunConditions.CheckCores(conditions, layout);
        // Only the built-in SUT reads PostgreSQL: experiments on apps of one's own start none.
        var needsDatabase = selected.Any(e => e.App is null);
        var (connectionString, database) = needsDatabase
            ? await DatabasePreparation.EnsureReadyAsync(choices.Connection, choices.DataDir, Console.Out, ct)
            : ("", "none (every experiment runs an app of its own)");
        if (needsDatabase && conditions.Any(c => c.DatabaseRttMs is not null))
        {
            DatabasePath.CheckTarget(connectionString);
        }
        if (needsDatabase)
        {
            await DatabasePreparation.WarmAsync(connectionString, ct);
        }
        await DatabasePreparation.ApplyLayoutAsync(layout.Generator, needsDatabase ? layout.Database : null, choices.Connection, choices.DataDir, ct);
        Console.WriteLine($"cores: {layout.Note}");

        Directory.CreateDirectory(outDir);
        var request = new RunRequest(selected, choices.Profile, choices.Repeat, choices.Aa, connectionString, database, layout, Path.Combine(outDir, "logs"))
        {
            PrecisionPercent = choices.Precision,
            Budget = choices.Budget,
            TraceFolder = (choices.Trace ?? choices.Profile != "smoke") ? Path.Combine(outDir, "traces") : null,
            KeepTraces = choices.KeepTraces,
        };
        var results = await RunAndRecordAsync(request, ct);
        results = results with
        {
            Thresholds = ThresholdGate.Evaluate(results, name => [.. (selected.FirstOrDefault(e => e.Name == name)?.Thresholds ?? []), .. choices.Gates]),
        };
        ReportWriters.WriteAll(results, outDir);

        ConsoleRunObserver.PrintSummary(results, outDir);
        return choices.Outputs.Finish(results, outDir, (int)ExitCodeOf(results, ct));
    }

    /// <summary>Interrupted, then a failed or incomplete run, then a failed gate: the most basic problem names the exit.</summary>
    public static ExitCode ExitCodeOf(RunResults results, CancellationToken ct)
    {
        if (results.Incomplete)
        {
            return ct.IsCancellationRequested ? ExitCode.Interrupted : ExitCode.Failed;
        }
        if (NotApplicable.RealFailures(results).Any())
        {
            return ExitCode.Failed;
        }
        return ThresholdGate.AllPassed(results.Thresholds) ? ExitCode.Success : ExitCode.ThresholdsFailed;
    }

    /// <summary>Every variant's conditions at every point of the selected experiments, to check before anything starts.</summary>
    private static List<Conditions> ConditionsOf(IReadOnlyList<ExperimentDefinition> selected) =>
        selected.SelectMany(SweepDefinition.Points).SelectMany(e => e.Variants.Select(v => e.Conditions.Under(v.Conditions))).ToList();

    private static async Task<RunResults> RunAndRecordAsync(RunRequest request, CancellationToken ct)
    {
        var noise = NoiseFloors.Load();
        var results = await new ExperimentRunner(request, new ConsoleRunObserver()).RunAsync(noise, ct);
        if (request.Aa)
        {
            // Recorded after the run, never mid-analysis: an interrupted A/A run still records what it measured.
            foreach (var experiment in results.Experiments)
            {
                noise.Record(experiment.Name, experiment.Comparisons);
            }
        }
        return results;
    }

    private static IReadOnlyList<ExperimentDefinition> Select(IReadOnlyList<ExperimentDefinition> all, string[] names)
    {
        if (names.Length == 0)
        {
            // Sweeps and other long experiments marked `default: false` run only when named.
            var defaults = all.Where(e => e.RunsByDefault).ToList();
            return defaults.Count > 0 || all.Count == 0
                ? defaults
                : throw new PerfLabException(
                    $"every experiment here runs only when named (default: false); name one or more: {string.Join(", ", all.Select(e => e.Name))}.",
                    ExitCode.Usage);
        }
        var unknown = names.Where(n => all.All(e => e.Name != n)).ToList();
        if (unknown.Count > 0)
        {
            throw new PerfLabException(
                $"unknown experiment{(unknown.Count > 1 ? "s" : "")} {string.Join(", ", unknown.Select(u => $"'{u}'"))}; known: {string.Join(", ", all.Select(e => e.Name))}.",
                ExitCode.Usage);
        }
        return names.Distinct().Select(n => all.First(e => e.Name == n)).ToList();
    }
}

/// <summary>What `perflab run` (and `perflab compare`) was asked, beyond which experiments.</summary>
internal sealed record RunChoices(string Profile, int? Repeat, bool Aa, string? Output, bool? Pin, double? Precision, TimeSpan? Budget,
    bool? Trace, bool KeepTraces, string? Connection, string? DataDir)
{
    /// <summary>CI gates from the command line, checked after the run beside each experiment file's own.</summary>
    public IReadOnlyList<Threshold> Gates { get; init; } = [];

    /// <summary>--junit, --json and the CI step summary.</summary>
    public CiOutputs Outputs { get; init; } = CiOutputs.StepSummaryOnly("run");
}

/// <summary>Plain progress lines: one when a run starts (with the ETA of the whole run), one with its figures.</summary>
public sealed class ConsoleRunObserver : IRunObserver
{
    public void RunStarting(RunPosition p) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"[{p.Index}/{p.Total}] {p.Experiment}: {p.Variant} (repetition {p.Repetition}/{p.Repetitions}){(p.Remaining is { } r ? $"  ETA {Fmt.Duration(TimeSpan.FromSeconds(Math.Round(r.TotalSeconds)))}" : "")}"));

    public void RunFinished(RunPosition p, RunRecord record)
    {
        if (record.Status != RunStatus.Ok)
        {
            Console.WriteLine($"    FAILED: {record.FailureReason}");
            if (record.LogTail is { Length: > 0 } tail)
            {
                Console.WriteLine(tail);
            }
            return;
        }
        foreach (var s in record.Scenarios)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"    {s.Scenario}: {s.Rps:0.0} RPS, mean {s.MeanMs:0.0} ms, p99 {s.P99Ms:0.0} ms, {s.Errors} errors"));
        }
        if (p.Repetition == 1 && (record.Confirmed.Count > 0 || record.Unconfirmed.Count > 0))
        {
            Console.WriteLine($"    confirmed: {(record.Confirmed.Count > 0 ? string.Join("; ", record.Confirmed) : "nothing asked")}" +
                (record.Unconfirmed.Count > 0 ? $"; unconfirmed: {string.Join("; ", record.Unconfirmed)}" : ""));
        }
        if (record.BatchTimesMs.Count > 0)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"    batches: {string.Join(", ", record.BatchTimesMs.Select(b => b.ToString("0", CultureInfo.InvariantCulture)))} ms"));
        }
    }

    public void BlockFinished(BlockProgress p)
    {
        // Only adaptive runs say anything: a fixed number of blocks needs no running commentary.
        if (p.TargetPercent is null)
        {
            return;
        }
        var widest = double.IsFinite(p.WidestHalfWidthPercent)
            ? string.Create(CultureInfo.InvariantCulture, $"{p.WidestHalfWidthPercent:0.0} %")
            : "not yet computable";
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"    {p.Experiment}: block {p.Block} done, widest half-width {widest} (target {p.TargetPercent:0.#} %){(p.Decision.Stop ? $": stop, {p.Decision.Reason}" : $": {p.Decision.Reason ?? "one more block"}")}"));
    }

    public void Message(string text) => Console.WriteLine($"    {text}");

    public static void PrintSummary(RunResults results, string outDir)
    {
        Console.WriteLine();
        foreach (var experiment in results.Experiments)
        {
            foreach (var c in experiment.Comparisons.Where(c => c.Scenario == "all" && c.Metric is "rps" or "batch-mean-ms"))
            {
                var verdict = Fmt.Verdict(c.Verdict) + (c.Verdict == Verdict.NotEnoughData ? " (repeat 2+ times)" : "");
                Console.WriteLine($"{experiment.Name}: {c.Variant} vs {experiment.Baseline}: {c.Metric} {Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)} -> {verdict}");
            }
        }
        foreach (var sweep in results.Sweeps ?? [])
        {
            foreach (var crossover in SweepContent.Crossovers(sweep))
            {
                Console.WriteLine($"sweep {sweep.Experiment}: {crossover}");
            }
        }
        if (results.Incomplete)
        {
            Console.WriteLine($"incomplete: {results.IncompleteReason}");
        }
        if (results.Thresholds.Count > 0)
        {
            Console.WriteLine();
            ThresholdSection.WriteText(Console.Out, results.Thresholds);
        }
        Console.WriteLine($"report: {Path.Combine(outDir, "report.md")}");
        Console.WriteLine($"        {Path.Combine(outDir, "report.html")}");
        Console.WriteLine($"        {Path.Combine(outDir, "results.json")}");
    }

}
