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

    /// <summary>The root of the checkout perflab was built from.</summary>
    public static string RepoRoot => Metadata("PerfLab.RepoRoot");

    /// <summary>The net10.0 build of the system under test that was built with perflab.</summary>
    public static string SutAssembly => Metadata("PerfLab.SutPath");

    private static string Metadata(string key) =>
        typeof(PerfLabPaths).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
            .FirstOrDefault(a => a.Key == key)?.Value
        ?? throw new PerfLabException($"this perflab build does not record '{key}'; rebuild it with ./perflab.", ExitCode.Environment);
}
