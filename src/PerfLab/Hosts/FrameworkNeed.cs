using System.Globalization;
using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// A shared framework an app needs on its host, of one major version (what the app's runtimeconfig.json names: the
/// runtime rolls forward over minor versions, never over a major one by default).
/// </summary>
internal sealed record FrameworkNeed(string Name, int Major)
{
    public const string AspNetCore = "Microsoft.AspNetCore.App";

    // The package that installs each framework (Debian's and Microsoft's packages name it alike) and dotnet-install.sh's
    // --runtime for it.
    private static readonly Dictionary<string, (string Package, string Script)> Installers = new(StringComparer.Ordinal)
    {
        ["Microsoft.NETCore.App"] = ("dotnet-runtime", "dotnet"),
        [AspNetCore] = ("aspnetcore-runtime", "aspnetcore"),
    };

    /// <summary>What the built-in SUT needs: ASP.NET Core of the runtime perflab is built for.</summary>
    public static IReadOnlyList<FrameworkNeed> BuiltInSut { get; } = [new(AspNetCore, HostProbe.RuntimeMajor)];

    /// <summary>
    /// What the app built as <paramref name="dll"/> needs: each framework its runtimeconfig.json names; none when it has
    /// none or lists its frameworks as included (a self-contained app brings its own).
    /// </summary>
    public static IReadOnlyList<FrameworkNeed> Of(string dll)
    {
        var config = Path.ChangeExtension(dll, ".runtimeconfig.json");
        if (!File.Exists(config))
        {
            return [];
        }
        try
        {
            using var json = JsonDocument.Parse(File.ReadAllText(config),
                new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
            if (!json.RootElement.TryGetProperty("runtimeOptions", out var options))
            {
                return [];
            }
            List<JsonElement> named = options.TryGetProperty("frameworks", out var many) ? [.. many.EnumerateArray()]
                : options.TryGetProperty("framework", out var one) ? [one]
                : [];
            return [.. named.Select(f =>
                new FrameworkNeed(f.GetProperty("name").GetString()!, MajorOf(f.GetProperty("version").GetString())))];
        }
        catch (Exception ex) when (ex is JsonException or KeyNotFoundException or InvalidOperationException)
        {
            throw new PerfLabException($"{config} is not a runtimeconfig.json perflab can read: {ex.Message}", ExitCode.Usage, ex);
        }
    }

    /// <summary>Whether a host's frameworks (<c>NAME VERSION</c> each, as dotnet --list-runtimes gives them) meet it.</summary>
    public bool MetBy(IReadOnlyList<string> frameworks) =>
        frameworks.Any(f => f.Split(' ') is [var name, var version] && name == Name && MajorOf(version) == Major);

    /// <summary>Why <paramref name="app"/> cannot run on <paramref name="host"/>, what it has, and what to install.</summary>
    public string Missing(HostRef host, string app, IReadOnlyList<string> frameworks)
    {
        var found = frameworks.Where(f => f.StartsWith(Name + " ", StringComparison.Ordinal)).Select(f => f.Split(' ')[1]).ToList();
        var install = Installers.TryGetValue(Name, out var i)
            ? string.Create(CultureInfo.InvariantCulture, $"install {i.Package}-{Major}.0 there (apt-get install {i.Package}-{Major}.0, "
                + $"from Debian's or Microsoft's packages; or dotnet-install.sh --runtime {i.Script} --channel {Major}.0)")
            : string.Create(CultureInfo.InvariantCulture, $"install {Name} {Major} there");
        var has = found.Count > 0 ? string.Join(", ", found) : "none";
        return string.Create(CultureInfo.InvariantCulture, $"{host}: {app} needs {Name} {Major}, which it lacks (found {has}): {install}.");
    }

    /// <summary>
    /// The first of <paramref name="needs"/> the host's <paramref name="frameworks"/> do not meet, in words; null: all met.
    /// </summary>
    public static string? FirstMissing(IEnumerable<FrameworkNeed> needs, HostRef host, string app, IReadOnlyList<string> frameworks) =>
        needs.FirstOrDefault(n => !n.MetBy(frameworks))?.Missing(host, app, frameworks);

    private static int MajorOf(string? version) =>
        int.TryParse(version?.Split('.')[0], CultureInfo.InvariantCulture, out var major) ? major : 0;
}
