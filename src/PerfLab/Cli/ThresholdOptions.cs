using System.CommandLine;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>`--threshold`, shared by `perflab run` and `perflab compare-results`.</summary>
internal static class ThresholdOptions
{
    public static Option<string[]> Create(string description) => new("--threshold")
    {
        Description = description,
        HelpName = "gate",
        AllowMultipleArgumentsPerToken = false,
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
}
