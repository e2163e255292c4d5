using System.Reflection;

namespace PerfLab.Common;

/// <summary>Where perflab keeps its own files, and where this checkout's parts are.</summary>
public static class PerfLabPaths
{
    /// <summary>Overrides the cache folder (noise floors, the managed cluster, built variants): tests give each CLI their own.</summary>
    public const string CacheDirVariable = PerfLabSettings.CacheDir;

    /// <summary>
    /// perflab's cache folder: $PERFLAB_CACHE_DIR when set; else $XDG_CACHE_HOME/perflab or ~/.cache/perflab; as
    /// root, /var/tmp/perflab, because PostgreSQL then runs as another user who cannot enter /root.
    /// </summary>
    public static string CacheRoot
    {
        get
        {
            if (Environment.GetEnvironmentVariable(CacheDirVariable) is { Length: > 0 } own)
            {
                return Path.GetFullPath(own);
            }
            if (Environment.IsPrivilegedProcess && OperatingSystem.IsLinux())
            {
                return "/var/tmp/perflab";
            }
            var xdg = Environment.GetEnvironmentVariable("XDG_CACHE_HOME");
            var baseDir = string.IsNullOrEmpty(xdg)
                ? Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".cache")
                : xdg;
            return Path.Combine(baseDir, "perflab");
        }
    }

    /// <summary>
    /// True when perflab runs from its package (`dotnet tool install`) or a publish: the SUT, its sources and the
    /// experiments then sit beside perflab.dll, and nothing refers to the clone it was packed from.
    /// </summary>
    public static bool Packaged => File.Exists(Path.Combine(AppContext.BaseDirectory, "sut", "PerfLab.Sut.dll"));

    /// <summary>
    /// The source tree perflab runs from: the checkout it was built from, or in the package its own copy of the SUT's
    /// sources (what publishing the net8.0 and net9.0 variants needs), laid out as in the checkout.
    /// </summary>
    public static string RepoRoot => Packaged ? Path.Combine(AppContext.BaseDirectory, "source") : Metadata("PerfLab.RepoRoot");

    /// <summary>The net10.0 build of the system under test that was built (or packed) with perflab.</summary>
    public static string SutAssembly => Packaged
        ? Path.Combine(AppContext.BaseDirectory, "sut", "PerfLab.Sut.dll")
        : Metadata("PerfLab.SutPath");

    /// <summary>The built-in experiments: experiments/ of the checkout, or the copy inside the package.</summary>
    public static string ExperimentsFolder => Path.Combine(Packaged ? AppContext.BaseDirectory : RepoRoot, "experiments");

    /// <summary>
    /// What the package was built from, for a run's provenance where git has no checkout to ask: "0.1.0, commit
    /// 0123456789ab" (the SDK writes the commit into the informational version when it builds from a git checkout).
    /// </summary>
    public static string PackageDescription
    {
        get
        {
            var version = typeof(PerfLabPaths).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
                ?? "unknown";
            var plus = version.IndexOf('+', StringComparison.Ordinal);
            return plus < 0
                ? $"perflab {version} package"
                : $"{version[(plus + 1)..][..Math.Min(12, version.Length - plus - 1)]} (perflab {version[..plus]} package)";
        }
    }

    private static string Metadata(string key) =>
        typeof(PerfLabPaths).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
            .FirstOrDefault(a => a.Key == key)?.Value
        ?? throw new PerfLabException($"this perflab build does not record '{key}'; rebuild it with ./perflab.", ExitCode.Environment);
}
