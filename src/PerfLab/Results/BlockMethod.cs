namespace PerfLab.Results;

/// <summary>
/// How a block spends its processes (<c>method:</c>): each variant in a fresh process of its own (the default), or
/// every variant inside one process that serves them all, taking turns by a request header, so that each process is
/// its own pair and its own part of the cost (up to 25 % between two fresh SUTs of one block) cancels in the pair.
/// </summary>
/// <param name="Key">As written in the experiment file and results.json.</param>
/// <param name="Description">The report's words for it.</param>
/// <param name="OneProcess">The block's variants share one process of the built-in SUT.</param>
public sealed record BlockMethod(string Key, string Description, bool OneProcess)
{
    public static readonly BlockMethod FreshProcesses = new("fresh-process",
        "each block starts a fresh process per variant", false);

    public static readonly BlockMethod InProcess = new("in-process",
        "each block is one process serving every variant, chosen per request by a header and taking turns in slots", true);

    public static readonly IReadOnlyList<BlockMethod> All = [FreshProcesses, InProcess];

    /// <summary>
    /// The built-in SUT's settings a request may switch (PerfLab.Sut's RequestVariants.Keys; perflab does not reference
    /// its assembly): variants of an in-process experiment may differ in these only.
    /// </summary>
    public static readonly IReadOnlyList<string> PerRequestSettings = ["Serializer", "Logging", "ExtraWorkMicroseconds"];

    /// <summary>The setting that makes the built-in SUT honour the per-request header.</summary>
    public const string PerRequestSwitch = "PerRequestVariants";

    /// <summary>Whether a variant setting's key (relative to "Sut" or written with it) is a per-request switch.</summary>
    public static bool IsPerRequest(string key) =>
        PerRequestSettings.Contains(key.StartsWith("Sut:", StringComparison.OrdinalIgnoreCase) ? key[4..] : key,
            StringComparer.OrdinalIgnoreCase);
}
