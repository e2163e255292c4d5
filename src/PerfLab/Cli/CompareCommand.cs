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
        var app = new Argument<string?>("app")
        {
            Description = "The app: a project folder or .csproj (published in Release, cached) or a built .dll (or give --command).",
            Arity = ArgumentArity.ZeroOrOne,
        };
        var command = new Option<string?>("--command") { Description = "A command that starts the app instead, with {port} where its port goes (else it gets ASPNETCORE_URLS)." };
        var urls = new Option<string[]>("--url", "-u") { Description = "A path to load, e.g. /api/orders; repeat for scenarios run side by side.", Required = true };
        var users = new Option<int?>("--users", "-c") { Description = "Virtual users per path (closed model, as wrk; default 10)." };
        users.Check(v => v is null or (>= 1 and <= 10_000), "--users must be from 1 to 10000.");
        var rate = new Option<int?>("--rate", "-R") { Description = "Requests per second per path instead (open model, latency from the intended send time, as wrk2)." };
        rate.Check(v => v is null or (>= 1 and <= 1_000_000), "--rate must be from 1 to 1000000.");
        var variants = new Option<string[]>("--variant")
        {
            Description = "NAME or \"NAME: ITEM ...\" with ITEM one of KEY=VALUE (environment, e.g. DOTNET_gcServer=1), --Key=Value (configuration, " +
                          "e.g. --Report:Cache=true) or @REF (a git ref of the project, built in a worktree); the first is the baseline. At least two.",
            Required = true,
        };
        var ready = new Option<string>("--ready") { Description = "A path that answers 2xx once the app is ready (default: the first --url, or / when it has a {placeholder})." };
        var profile = new Option<ProfileName>("--profile", "-p")
        {
            Description = "quick (the default: 10 s steady warm-up, 6 s windows, blocks until ±5 %), smoke (one 2 s run each), article (5 × 30 s).",
            DefaultValueFactory = _ => ProfileName.Quick,
        };
        profile.AcceptOnlyFromAmong([.. ProfileNames.Keys]);
        var repeat = new Option<int?>("--repeat", "-r") { Description = "Interleaved blocks (each variant once per block); the minimum when the profile adds blocks for precision." };
        repeat.Check(v => v is null or (>= 1 and <= 100), "--repeat must be from 1 to 100.");
        var output = new Option<string?>("--out", "-o") { Description = "Output folder (default: results/<timestamp>); never overwritten.", HelpName = "folder" };
        var trace = new Option<bool?>("--trace") { Description = "Trace each variant's first run for 5 s after its window (default: on, except the smoke profile)." };
        var pin = new Option<bool?>("--pin") { Description = "Pin the app and the generator to separate CPUs (default: only with 4 or more cores)." };
        var (precision, budget, ci) = (RunTuningOptions.Precision(), RunTuningOptions.Budget(), new OutputOptions());
        var thresholds = ThresholdOptions.Create("A CI gate checked after the run, e.g. \"p99<250ms\", \"errors<1%\", \"change>-5%\" (RPS against the baseline), \"no-worse\"; repeatable. A failing gate exits with 5.");

        var verb = new Command("compare", "Compare variants of an app in one line, without a file: same report and verdicts as `perflab run`.");
        verb.Arguments.Add(app);
        foreach (var option in new Option[] { command, urls, users, rate, variants, ready, profile, repeat, precision, budget, thresholds, output, trace, pin })
        {
            verb.Options.Add(option);
        }
        ci.AddTo(verb);
        verb.SetAction(async (parse, ct) =>
        {
            var spec = new CompareSpec(parse.GetValue(app), parse.GetValue(command), parse.GetValue(urls) ?? [], parse.GetValue(users),
                parse.GetValue(rate), parse.GetValue(variants) ?? [], parse.GetValue(ready) ?? DefaultReady(parse.GetValue(urls) ?? []));
            var experiment = CompareDefinition.Build(spec, Environment.CurrentDirectory);
            var gates = ThresholdOptions.Parse(parse.GetValue(thresholds));
            ThresholdOptions.EnsureScenariosExist(gates, experiment.Scenarios.Select(s => s.Name));
            return await RunCommand.RunSelectedAsync([experiment], new LabRunChoices(parse.GetValue(profile))
            {
                Repeat = parse.GetValue(repeat), Output = parse.GetValue(output), Pin = parse.GetValue(pin), Precision = parse.GetValue(precision),
                Budget = RunTuningOptions.BudgetOf(parse, budget), Trace = parse.GetValue(trace), Gates = gates,
            }, ci.Begin(parse, "compare"), ct);
        });
        return verb;
    }

    /// <summary>
    /// Readiness without --ready: the first path to be loaded, which the user says answers (an app need not serve /);
    /// / when that path holds a placeholder that only the feed fills.
    /// </summary>
    internal static string DefaultReady(IReadOnlyList<string> urls) =>
        urls.Count > 0 && urls[0].StartsWith('/') && !urls[0].Contains('{', StringComparison.Ordinal) ? urls[0] : "/";
}
