namespace PerfLab.Experiments.Definitions;

/// <summary>The profiles every experiment has: the seed's own durations, the everyday adaptive one, and CI's short one.</summary>
public enum ProfileName
{
    Article,
    Quick,
    Smoke,
}

public static class ProfileNames
{
    /// <summary>Every profile, as experiment files, the command line and results.json spell it: article, quick, smoke.</summary>
    public static IReadOnlyList<string> Keys { get; } = [.. Enum.GetValues<ProfileName>().Select(Key)];

    /// <summary>The profile's name as experiment files, the command line and results.json spell it ("quick").</summary>
    public static string Key(this ProfileName profile) => profile.ToString().ToLowerInvariant();

    /// <summary>
    /// The profile a spelled name stands for; an unknown name is
    /// a bug of the caller, who offers only <see cref="Keys"/>.
    /// </summary>
    public static ProfileName Parse(string key) => Enum.Parse<ProfileName>(key, ignoreCase: true);
}
