namespace PerfLab.Experiments.Definitions;

/// <summary>
/// The profiles an experiment gets when its file (or `perflab compare`'s command line) names none: article five 30 s
/// runs, quick blocks of 6 s windows until every change is known to ±5 % (at most 8), smoke one 2 s run each. A file
/// gives only the profiles it wants to change.
/// </summary>
public static class DefaultProfiles
{
    public static IReadOnlyDictionary<ProfileName, ProfileDefinition> All { get; } = new Dictionary<ProfileName, ProfileDefinition>
    {
        [ProfileName.Article] = new(TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(30), 5, 0),
        [ProfileName.Quick] = new(TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(6), 3, 0)
        {
            WarmupUntilSteady = true,
            PrecisionPercent = 5,
            MaxRepeat = 8,
        },
        [ProfileName.Smoke] = new(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2), 1, 0),
    };
}
