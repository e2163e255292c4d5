using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Cli;

public static class ListCommand
{
    public static Command Create()
    {
        var folder = new ExperimentsFolder();
        var json = new Option<bool>("--json")
        {
            Description = "Print the experiments as JSON (name, title, seed or app, baseline, variants, "
                + "scenarios, load, profiles) instead.",
        };
        var command = new Command("list", "List the experiments with the seed each reproduces (or the app it "
            + "measures), its variants and load.");
        folder.AddTo(command);
        command.Options.Add(json);
        command.SetAction(parse =>
        {
            var experiments = ExperimentLoader.LoadFolder(folder.Read(parse));
            if (parse.GetValue(json))
            {
                Console.WriteLine(ExperimentListJson.Write(experiments));
                return (int)ExitCode.Success;
            }
            foreach (var e in experiments)
            {
                var quick = e.Profiles[ProfileName.Quick];
                Console.WriteLine(e.App is { } app
                    ? $"{e.Name,-16} {app.Kind.ToString().ToLowerInvariant()} {app.Path}  {e.Title}"
                    : $"{e.Name,-16} seed {e.Seed}  {e.Title}");
                var variants = e.Variants.Select(v => v.Name == e.Baseline ? v.Name + " (baseline)" : v.Name);
                Console.WriteLine($"{"",-16} variants: {string.Join(", ", variants)}");
                var warmup = (quick.WarmupUntilSteady ? "until steady, at most " : "") + DurationText.Format(quick.Warmup);
                Console.WriteLine($"{"",-16} load: {ExperimentAnalyzer.DescribeLoad(e, quick)}; quick profile: warm-up {warmup}, "
                    + $"{DurationText.Format(quick.Duration)} measured, {Repetitions(quick)}");
                if (!e.RunsByDefault)
                {
                    var sweepNote = e.Sweep is { } sweep ? $" (a sweep: {sweep.Values.Count} points, each a full experiment)" : "";
                    Console.WriteLine($"{"",-16} not in the default run{sweepNote}: run it by name, `perflab run {e.Name}`");
                }
            }
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static string Repetitions(ProfileDefinition profile)
    {
        if (profile.PrecisionPercent is not { } target)
        {
            return $"{profile.Repeat} repetitions";
        }
        var rule = StoppingRule.For(profile, null, null);
        return string.Create(CultureInfo.InvariantCulture,
            $"{rule.MinBlocks} to {rule.MaxBlocks} blocks, until every change's 95 % interval is within ±{target:0.#} %");
    }
}
