using System.Globalization;

namespace PerfLab.Apps;

/// <summary>
/// Sets what a variant asked for beside what its process shows (<see cref="ProcessView"/>): each environment variable
/// against the process's own environment, the GC mode against its GC threads, each configuration key against its
/// command line. What the process contradicts is <see cref="VariantEffect.NotInEffect"/>; what cannot be seen from
/// outside (what an app does with its own configuration) is <see cref="VariantEffect.Unconfirmed"/>, never assumed.
/// </summary>
public static class EffectCheck
{
    private static readonly string[] GcServerKeys = ["DOTNET_gcServer", "COMPlus_gcServer"];

    /// <param name="environment">The environment the variant asked for (perflab's own variables left out).</param>
    /// <param name="configuration">Configuration keys the variant set, with how they were passed.</param>
    public static VariantEffect Check(IReadOnlyDictionary<string, string> environment,
        IReadOnlyDictionary<string, string> configuration, bool configurationAsEnvironment, ProcessView view)
    {
        var confirmed = new List<string>();
        var unconfirmed = new List<string>();
        var notInEffect = new List<string>();
        var observed = Observed(view);

        foreach (var (key, value) in environment.OrderBy(p => p.Key, StringComparer.Ordinal))
        {
            if (view.Environment is null)
            {
                unconfirmed.Add($"{key}={value} (the process environment could not be read: {view.EnvironmentError})");
            }
            else if (!view.Environment.TryGetValue(key, out var actual))
            {
                notInEffect.Add($"{key}: asked {value}, absent from the process's environment");
            }
            else if (actual != value)
            {
                notInEffect.Add($"{key}: asked {value}, the process's environment has {actual}");
            }
            else
            {
                confirmed.Add($"{key}={value} (process environment)");
            }
        }
        CheckGcMode(environment, view, confirmed, unconfirmed, notInEffect);
        foreach (var (key, value) in configuration.OrderBy(p => p.Key, StringComparer.Ordinal))
        {
            var argument = $"--{key}={value}";
            if (!configurationAsEnvironment && view.CommandLine.Count > 0 && !view.CommandLine.Contains(argument))
            {
                notInEffect.Add($"configuration {key}={value}: {argument} is not on the app process's command line");
                continue;
            }
            var how = configurationAsEnvironment ? $"passed as {EnvironmentName(key)}" : $"passed as {argument}";
            unconfirmed.Add($"configuration {key}={value} ({how}; what the app does with it is not observable from outside)");
        }
        return new VariantEffect(confirmed, unconfirmed, notInEffect, observed);
    }

    /// <summary>The environment variable that carries a configuration key (":" becomes "__", as ASP.NET Core reads it).</summary>
    public static string EnvironmentName(string key) => key.Replace(":", "__", StringComparison.Ordinal);

    private static void CheckGcMode(IReadOnlyDictionary<string, string> environment, ProcessView view,
        List<string> confirmed, List<string> unconfirmed, List<string> notInEffect)
    {
        var key = GcServerKeys.FirstOrDefault(environment.ContainsKey);
        if (key is null)
        {
            return;
        }
        var wantServer = environment[key].Trim() is "1" or "true" or "True" or "TRUE";
        var wanted = wantServer ? "server" : "workstation";
        if (view.ServerGcThreads is not { } threads)
        {
            unconfirmed.Add($"{wanted} GC (the process's threads could not be read)");
            return;
        }
        var actual = threads > 0 ? "server" : "workstation";
        var evidence = threads > 0
            ? $"{threads.ToString(CultureInfo.InvariantCulture)} '{RuntimeObservation.ServerGcThreadName}' threads"
            : $"no '{RuntimeObservation.ServerGcThreadName}' thread";
        if (actual == wanted)
        {
            confirmed.Add($"{wanted} GC ({evidence})");
        }
        else
        {
            notInEffect.Add($"GC mode ({key}={environment[key]}): asked {wanted}, observed {actual} ({evidence})");
        }
    }

    private static Dictionary<string, string> Observed(ProcessView view)
    {
        var observed = new Dictionary<string, string>();
        if (view.Runtime is { } runtime)
        {
            observed["runtime"] = runtime;
        }
        if (view.ServerGcThreads is { } threads)
        {
            observed["gc"] = threads > 0 ? "server" : "workstation";
            observed["serverGcThreads"] = threads.ToString(CultureInfo.InvariantCulture);
        }
        return observed;
    }
}
