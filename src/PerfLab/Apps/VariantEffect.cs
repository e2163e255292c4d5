namespace PerfLab.Apps;

/// <summary>
/// Whether a variant took effect in its process. <see cref="Confirmed"/>: seen in effect (the process environment, the
/// GC mode, the built-in SUT's /info). <see cref="Unconfirmed"/>: asked for but not observable from outside (a
/// configuration key, a thread-pool setting). <see cref="NotInEffect"/>: shown not to hold; the run fails with these.
/// <see cref="Observed"/> is what was read (runtime, GC mode, ...), kept with the run in results.json.
/// </summary>
public sealed record VariantEffect(
    IReadOnlyList<string> Confirmed,
    IReadOnlyList<string> Unconfirmed,
    IReadOnlyList<string> NotInEffect,
    IReadOnlyDictionary<string, string> Observed)
{
    public static VariantEffect Combine(VariantEffect a, VariantEffect b) => new(
        [.. a.Confirmed, .. b.Confirmed],
        [.. a.Unconfirmed, .. b.Unconfirmed],
        [.. a.NotInEffect, .. b.NotInEffect],
        a.Observed.Concat(b.Observed).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.First().Value));
}
