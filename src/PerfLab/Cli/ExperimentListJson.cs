using System.Text.Json;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;

namespace PerfLab.Cli;

/// <summary>`perflab list --json`: the experiments as a script reads them, one JSON document.</summary>
internal static class ExperimentListJson
{
    private static readonly JsonSerializerOptions s_options = new(JsonSerializerDefaults.Web);

    public static string Write(IReadOnlyList<ExperimentDefinition> experiments) =>
        JsonSerializer.Serialize(experiments.Select(Entry).ToList(), s_options);

    private static ExperimentEntry Entry(ExperimentDefinition e) => new(
        e.Name,
        e.Title,
        e.App is null ? e.Seed : null,
        e.App is { } app ? $"{app.Kind.ToString().ToLowerInvariant()} {app.Path}" : null,
        e.Baseline,
        [.. e.Variants.Select(v => v.Name)],
        [.. e.Scenarios.Select(s => s.Name)],
        ExperimentAnalyzer.DescribeLoad(e, e.Profiles[ProfileName.Quick]),
        e.RunsByDefault,
        e.Sweep is { } sweep ? [.. sweep.Values] : null,
        e.Profiles.ToDictionary(p => p.Key.Key(), p => new ProfileEntry(
            DurationText.Format(p.Value.Warmup), DurationText.Format(p.Value.Duration), p.Value.Repeat, p.Value.PrecisionPercent,
                p.Value.MaxRepeat)));

    private sealed record ExperimentEntry(string Name, string Title, string? Seed, string? App, string Baseline,
        IReadOnlyList<string> Variants,
        IReadOnlyList<string> Scenarios, string Load, bool RunsByDefault, IReadOnlyList<double>? Sweep,
            IReadOnlyDictionary<string, ProfileEntry> Profiles);

    private sealed record ProfileEntry(string Warmup, string Duration, int Repeat, double? PrecisionPercent, int? MaxRepeat);
}
