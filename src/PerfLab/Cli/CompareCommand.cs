using System.CommandLine;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Cli;

/// <summary>
/// `perflab compare`: the everyday A/B in one line, without a file (as hyperfine or crank --compare): an app, one or
/// more paths, two or more variants; the same runner, report and verdicts as `perflab run`.
/// </summary>
public static class CompareCommand
{
    public static Command Create()
    {
        var o = new CompareOptions();
        var verb = new Command("compare", "Compare variants of an app in one line, without a file: same report "
            + "and verdicts as `perflab run`.");
        verb.Arguments.Add(o.App);
        foreach (var option in new Option[] { o.Command, o.Urls, o.Users, o.Rate, o.Variants, o.Ready, o.Profile, o.Repeat, o.Precision,
            o.Budget, o.Thresholds, o.Margin, o.Output, o.Hosts, o.Invocations, o.History, o.Commit,
            RunTuningOptions.RetiredProfileLetter() })
        {
            verb.Options.Add(option);
        }
        o.Trace.AddTo(verb);
        o.Pin.AddTo(verb);
        o.Ci.AddTo(verb);
        verb.SetAction(async (parse, ct) =>
        {
            var urls = parse.GetValue(o.Urls) ?? [];
            var spec = new CompareSpec(parse.GetValue(o.App), parse.GetValue(o.Command), urls, parse.GetValue(o.Users),
                parse.GetValue(o.Rate), parse.GetValue(o.Variants) ?? [], parse.GetValue(o.Ready) ?? DefaultReady(urls));
            var experiment = CompareDefinition.Build(spec, Environment.CurrentDirectory);
            var gates = ThresholdOptions.Parse(parse.GetValue(o.Thresholds));
            ThresholdOptions.EnsureScenariosExist(gates, experiment.Scenarios.Select(s => s.Name));
            ThresholdOptions.EnsureIntervals(gates, [experiment], parse.GetValue(o.Profile), parse.GetValue(o.Repeat),
                parse.GetValue(o.Invocations));
            var history = await HistoryCommand.CheckBeforeRunAsync(parse.GetValue(o.History), parse.GetValue(o.Commit), ct);
            return await RunCommand.RunSelectedAsync([experiment], new LabRunChoices(parse.GetValue(o.Profile))
            {
                Repeat = parse.GetValue(o.Repeat), Output = parse.GetValue(o.Output), Pin = o.Pin.Read(parse),
                Precision = parse.GetValue(o.Precision), Budget = RunTuningOptions.BudgetOf(parse, o.Budget),
                Trace = o.Trace.Read(parse), Gates = gates, Margin = parse.GetValue(o.Margin), Hosts = HostsOption.Read(parse, o.Hosts),
            }, o.Ci.Begin(parse, "compare"), ct,
                InvocationsAsk.Of(parse, o.Invocations, o.Output, o.Budget, o.Ci.Junit, o.Ci.Json, o.History, o.Commit), history);
        });
        return verb;
    }

    private sealed class CompareOptions
    {
        public Argument<string?> App { get; } = new("app")
        {
            Description = "The app: a project folder or .csproj (published in Release, cached) or a built .dll (or give --command).",
            Arity = ArgumentArity.ZeroOrOne,
        };

        public Option<string?> Command { get; } = new("--command")
        {
            Description = "A command that starts the app instead, with {port} where its port goes (else it gets ASPNETCORE_URLS).",
        };

        public Option<string[]> Urls { get; } = new("--url", "-u")
        {
            Description = "A path to load, e.g. /api/orders; repeat for scenarios run side by side.",
            Required = true,
        };

        public Option<int?> Users { get; } = new Option<int?>("--connections", "-c", "--users")
        {
            Description = "Connections per path, each a virtual user (closed model, as wrk -c; default 10).",
        }.Check(v => v is null or (>= 1 and <= 10_000), "--connections must be from 1 to 10000.");

        public Option<int?> Rate { get; } = new Option<int?>("--rate", "-R")
        {
            Description = "Requests per second per path instead (open model, latency from the intended send time, as wrk2).",
        }.Check(v => v is null or (>= 1 and <= 1_000_000), "--rate must be from 1 to 1000000.");

        public Option<string[]> Variants { get; } = new("--variant")
        {
            Description = "NAME or \"NAME: ITEM ...\" with ITEM one of KEY=VALUE (environment, e.g. DOTNET_gcServer=1), "
                + "--Key=Value (configuration, e.g. --Report:Cache=true) or @REF (a git ref of the project, built in a worktree); "
                + "the first is the baseline. At least two.",
            Required = true,
        };

        public Option<string> Ready { get; } = new("--ready")
        {
            Description = "A path that answers 2xx once the app is ready (default: the first --url, or / when it has a {placeholder}).",
        };

        public Option<ProfileName> Profile { get; } = RunTuningOptions.Profile(
            "quick (the default: 10 s steady warm-up, 6 s windows, blocks until ±5 %), smoke (one 2 s run each), article (5 × 30 s).");

        public Option<int?> Repeat { get; } = RunTuningOptions.Repeat(
            "Interleaved blocks (each variant once per block); the minimum when the profile adds blocks for precision.");

        public Option<string?> Output { get; } = new("--out", "-o")
        {
            Description = "Output folder (default: results/<timestamp>); never overwritten.",
            HelpName = "folder",
        };

        public FlagPair Trace { get; } = new("trace",
            "Trace each variant's first run for 5 s after its window (default: on, except the smoke profile).", "Skip the traces.");

        public FlagPair Pin { get; } = new("pin",
            "Pin the app and the generator to separate CPUs (default: only with 4 or more cores).", "Never pin, whatever the cores.");

        public Option<double?> Precision { get; } = RunTuningOptions.Precision();

        public Option<FileInfo?> Hosts { get; } = HostsOption.Create();

        public Option<TimeSpan?> Budget { get; } = RunTuningOptions.Budget();

        public Option<int> Invocations { get; } = RunTuningOptions.Invocations();

        public Option<string[]> Thresholds { get; } = ThresholdOptions.Create(
            "A CI gate checked after the run, e.g. \"p99<250ms\", \"errors<1%\", \"change>-5%\" (the deciding metric's "
            + "change against the baseline, better positive; \"rps-change>-5%\" for RPS alone), \"no-worse\" or "
            + "\"no-worse(3%)\"; repeatable. " + ThresholdOptions.IntervalReading
            + "A gate that reads an interval needs 2 or more blocks (not the smoke profile). A failing gate exits with 5.");

        public Option<double?> Margin { get; } = ThresholdOptions.Margin();

        public OutputOptions Ci { get; } = new();

        public Option<string?> History { get; } = HistoryCommand.RunOption();

        public Option<string?> Commit { get; } = HistoryCommand.CommitOption();
    }

    /// <summary>
    /// Readiness without --ready: the first path to be loaded, which the user says answers (an app need not serve /);
    /// / when that path holds a placeholder that only the feed fills.
    /// </summary>
    internal static string DefaultReady(IReadOnlyList<string> urls) =>
        urls.Count > 0 && urls[0].StartsWith('/') && !urls[0].Contains('{', StringComparison.Ordinal) ? urls[0] : "/";
}
