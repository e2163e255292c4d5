using PerfLab.Results;

namespace PerfLab.Reports;

// What a report says about the thing measured and whether each variant took effect, for Markdown and HTML alike.
internal static class EffectContent
{
    private const string BuiltIn = "the built-in SUT";

    /// <summary>The app line for an experiment on an app of one's own; null for the built-in SUT (its seed line says enough).</summary>
    public static string? App(ExperimentResult experiment) =>
        experiment.App is { } app && app != BuiltIn ? app : null;

    /// <summary>Whether the seed line has anything to say (an app of one's own may cite no seed).</summary>
    public static bool HasSeed(ExperimentResult experiment) => experiment.Seed.Length > 0 || experiment.Reproduces.Length > 0;

    /// <summary>Per variant: "confirmed: ...; unconfirmed: ..."; empty when no run recorded a check (older results).</summary>
    public static IReadOnlyList<(string Variant, string Text)> Lines(ExperimentResult experiment)
    {
        if (experiment.VariantEffects.All(e => e.Confirmed.Count == 0 && e.Unconfirmed.Count == 0))
        {
            return [];
        }
        return experiment.VariantEffects.Select(e => (e.Variant,
            $"confirmed: {List(e.Confirmed, "nothing asked beyond the defaults")}; unconfirmed: {List(e.Unconfirmed, "none")}")).ToList();
    }

    public const string Legend =
        "Confirmed: seen in effect in the running process (its environment read over the diagnostics IPC, its GC mode " +
        "from the runtime's GC threads, the built-in SUT's /info). Unconfirmed: asked for, but not observable from outside. " +
        "A variant shown not to have taken effect fails its runs (see failed runs).";

    private static string List(IReadOnlyList<string> items, string empty) => items.Count == 0 ? empty : string.Join("; ", items);
}
