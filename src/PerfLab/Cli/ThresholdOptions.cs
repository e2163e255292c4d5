using System.CommandLine;
using System.CommandLine.Parsing;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>`--threshold` and `--margin`, shared by `perflab run`, `perflab compare` and `perflab compare-results`.</summary>
internal static class ThresholdOptions
{
    public static Option<string[]> Create(string description) => new("--threshold")
    {
        Description = description,
        HelpName = "gate",
        AllowMultipleArgumentsPerToken = false,
    };

    /// <summary>How change gates read a change, said the same in every verb's help.</summary>
    public const string IntervalReading =
        "Change gates read the end of the change's 95 % interval least favourable to them (for change>-5%, the worse end), "
            + "not the point estimate; no-worse passes only when each deciding change's worse end lies within the margin "
            + "(non-inferiority), so an undecided comparison fails it. ";

    public static Option<double?> Margin() => new("--margin")
    {
        Description = "The margin an equivalent verdict's whole interval must lie within, and the largest loss no-worse accepts "
            + "(e.g. 3%), over an experiment file's margin:; default: 5 % for equivalent, each comparison's noise floor for no-worse.",
        HelpName = "percent",
        CustomParser = ParseMargin,
    };

    /// <summary>Parsed before anything runs: a mistyped gate is a usage error, not a surprise after an hour of measuring.</summary>
    public static IReadOnlyList<Threshold> Parse(string[]? texts) => [.. (texts ?? []).Select(Threshold.Parse)];

    /// <summary>
    /// A gate scoped to a scenario that none of <paramref name="scenarios"/>
    /// has would check nothing and pass: a usage error instead.
    /// </summary>
    public static void EnsureScenariosExist(IReadOnlyList<Threshold> gates, IEnumerable<string> scenarios)
    {
        var known = scenarios.ToHashSet(StringComparer.Ordinal);
        if (gates.FirstOrDefault(g => g.Scenario is { } s && !known.Contains(s)) is { } unknown)
        {
            throw new PerfLabException(
                $"threshold '{unknown.Text}': no selected experiment has a scenario '{unknown.Scenario}' "
                    + $"(scenarios: {string.Join(", ", known.Order(StringComparer.Ordinal))}).",
                ExitCode.Usage);
        }
    }

    /// <summary>
    /// A gate that reads an interval (no-worse, change) on a run that cannot give one (one block, and a single
    /// invocation) could only fail or, worse, pass unread: refused before anything is built or loaded, naming the profile
    /// that decides. Absolute gates (p99&lt;250ms, errors&lt;1%) need no interval.
    /// </summary>
    public static void EnsureIntervals(IReadOnlyList<Threshold> gates, IReadOnlyList<ExperimentDefinition> selected, ProfileName profile,
        int? repeat, int invocations)
    {
        if (invocations > 1)
        {
            return;
        }
        foreach (var e in selected)
        {
            var blocks = repeat ?? e.Profiles[profile].Repeat;
            if (blocks < 2 && e.Thresholds.Concat(gates).FirstOrDefault(g => g.NeedsInterval) is { } gate)
            {
                var why = repeat is null ? $"the {profile.Key()} profile runs {e.Name} once" : $"--repeat {repeat} runs {e.Name} once";
                throw new PerfLabException(
                    $"threshold '{gate.Text}' reads a change's 95 % interval, and {why}: no interval, so the gate could not be "
                        + "decided. Use --profile quick (at least 3 blocks, adaptive) or --repeat 3 or more; absolute gates "
                        + "(p99<250ms, errors<1%) work with one repetition.",
                    ExitCode.Usage);
            }
        }
    }

    private static double? ParseMargin(ArgumentResult result)
    {
        var text = result.Tokens.Count > 0 ? result.Tokens[0].Value : "";
        if (Threshold.Percentage(text) is { } margin)
        {
            return margin;
        }
        result.AddError($"--margin: '{text}' is not a percentage above 0 and below 100 (e.g. 3%).");
        return null;
    }
}
