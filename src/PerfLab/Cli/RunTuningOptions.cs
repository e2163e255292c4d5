using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Cli;

/// <summary>`--profile`, `--repeat`, `--precision`, `--budget` and `--invocations`: the same on `run` and `compare`.</summary>
internal static class RunTuningOptions
{
    /// <summary>`--profile` has no letter: -p is the process id on `counters` and `trace`, as dotnet-counters has it.</summary>
    public static Option<ProfileName> Profile(string description)
    {
        var profile = new Option<ProfileName>("--profile")
        {
            Description = description,
            DefaultValueFactory = _ => ProfileName.Quick,
        };
        profile.AcceptOnlyFromAmong([.. ProfileNames.Keys]);
        return profile;
    }

    /// <summary>`run -p quick` as it was written before -p meant one thing on every verb.</summary>
    public static Option<string?> RetiredProfileLetter() =>
        Spellings.RetiredLetter("-p", "--profile", "-p is --process-id on counters and trace, as dotnet-counters has it");

    public static Option<int?> Repeat(string description)
    {
        var repeat = new Option<int?>("--repeat", "-r") { Description = description };
        repeat.Check(v => v is null or (>= 1 and <= 100), "--repeat must be from 1 to 100.");
        return repeat;
    }

    public static Option<double?> Precision() => new("--precision")
    {
        Description = "Add interleaved blocks until every primary comparison's 95 % interval half-width is at most this "
            + "(e.g. 5%); overrides the profile's.",
        HelpName = "percent",
        CustomParser = ParsePrecision,
    };

    public static Option<TimeSpan?> Budget() => new("--budget")
    {
        Description = "Time the whole run may take, counted from its start (./perflab's build included): the minimum blocks are "
            + "planned into it (shorter warm-ups, fewer slots) or the run is refused before it starts; after every experiment's "
            + "minimum blocks, the time left goes block by block to the experiment that reaches its precision target for the "
            + "fewest seconds (else the one furthest from it), while a block of it still fits (default 20m).",
        HelpName = "duration",
        CustomParser = r => OptionChecks.Duration(r, "--budget", TimeSpan.FromSeconds(1), TimeSpan.FromDays(7), unitRequired: true),
    };

    public const string InvocationsName = "--invocations";

    public static Option<int> Invocations() => new Option<int>(InvocationsName)
    {
        Description = "Repeat the whole run as this many invocations, each a fresh perflab process with fresh SUTs in "
            + "<out>/invocation-K with an even share of --budget, and pool their changes: the 95 % interval then includes "
            + "what lasts an invocation (default 1: one invocation).",
        HelpName = "count",
        DefaultValueFactory = _ => 1,
    }.Check(v => v is >= 1 and <= 100, v => $"--invocations must be a whole number from 1 to 100, not {v}.");

    /// <summary>
    /// The budget asked, or the default, as the one value the run carries. The default is applied there rather than as
    /// the option's default value, which help would show as "00:20:00" instead of the "20m" a user types.
    /// </summary>
    public static TimeBudget BudgetOf(ParseResult parse, Option<TimeSpan?> budget) => TimeBudget.Asked(parse.GetValue(budget));

    /// <summary>A percentage such as 5% or 5, above 0 and below 100.</summary>
    private static double? ParsePrecision(ArgumentResult result)
    {
        var text = result.Tokens.Count > 0 ? result.Tokens[0].Value.Trim() : "";
        if (!double.TryParse(text.TrimEnd('%'), NumberStyles.Float, CultureInfo.InvariantCulture, out var percent)
            || !double.IsFinite(percent) || percent <= 0 || percent >= 100)
        {
            result.AddError($"--precision: '{text}' is not a percentage above 0 and below 100 (e.g. 5%).");
            return null;
        }
        return percent;
    }
}
