using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Each experiment's baseline throughput against the platform experiment's (the machine's ceiling): computed once
/// when a run is analysed (and again by `perflab report` for an older results.json), rendered by every writer.
/// </summary>
public static class CeilingNotes
{
    /// <summary>Empty without a platform experiment; burst and upload experiments time single operations and are left out.</summary>
    public static IReadOnlyList<string> Of(IReadOnlyList<ExperimentResult> experiments)
    {
        var platform = experiments.FirstOrDefault(e => e.Name == "platform");
        var ceiling = platform?.Summaries.FirstOrDefault(s => s.Variant == platform.Baseline)?.AllRps;
        if (ceiling is null || !double.IsFinite(ceiling.Median) || ceiling.Median <= 0)
        {
            return [];
        }
        var notes = new List<string>
        {
            string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"Platform ceiling on this machine: {ceiling.Median:0} RPS over all scenarios of the platform experiment's baseline "
                    + $"(minimal-API plaintext and JSON). Each experiment's baseline, all scenarios, against it:"),
        };
        foreach (var experiment in experiments.Where(e => e != platform))
        {
            var summary = experiment.Summaries.FirstOrDefault(s => s.Variant == experiment.Baseline);
            // Batch and upload experiments time single operations; their RPS says nothing against a ceiling.
            if (summary?.BatchMeanMs is null && summary?.AllRps is { } all && double.IsFinite(all.Median) && all.Median > 0)
            {
                notes.Add(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                    $"{experiment.Name} ({experiment.Baseline}): {all.Median:0.#} RPS "
                        + $"= {all.Median / ceiling.Median * 100:0.0##} % of the ceiling."));
            }
        }
        return notes;
    }
}
