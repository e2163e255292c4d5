using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>Where the PostgreSQL server programs (initdb, pg_ctl, postgres) live.</summary>
public sealed record PostgresBinaries(string BinDir)
{
    public const string BinDirVariable = PerfLabSettings.PgBinDir;
    private const string InstallHint = "install the PostgreSQL server (Debian/Ubuntu: `apt-get install postgresql`)";
    private static readonly string[] Programs = ["initdb", "pg_ctl", "postgres"];

    public string InitDb => Path.Combine(BinDir, "initdb");
    public string PgCtl => Path.Combine(BinDir, "pg_ctl");
    public string Postgres => Path.Combine(BinDir, "postgres");

    /// <summary>
    /// <paramref name="binDir"/> (or PERFLAB_PG_BINDIR) when given; otherwise the newest /usr/lib/postgresql/N/bin
    /// (Debian keeps the server programs off PATH), then PATH. Throws an Environment error naming the package.
    /// </summary>
    public static PostgresBinaries Find(string? binDir = null)
    {
        binDir ??= Environment.GetEnvironmentVariable(BinDirVariable) is { Length: > 0 } fromEnv ? fromEnv : null;
        if (binDir is not null)
        {
            return HasAll(binDir)
                ? new PostgresBinaries(Path.GetFullPath(binDir))
                : throw new PerfLabException(
                    $"PostgreSQL server programs (initdb, pg_ctl, postgres) not found in {binDir} (from " +
                    $"{BinDirVariable} or --pg-bindir); point it at the server's bin folder or {InstallHint}.",
                    ExitCode.Environment);
        }

        foreach (var candidate in DebianBinDirs())
        {
            if (HasAll(candidate))
            {
                return new PostgresBinaries(candidate);
            }
        }
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator,
                     StringSplitOptions.RemoveEmptyEntries))
        {
            if (HasAll(dir))
            {
                return new PostgresBinaries(dir);
            }
        }
        throw new PerfLabException(
            $"PostgreSQL server programs (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin or on PATH; " +
            $"{InstallHint}, set {BinDirVariable} to their folder, or use an external server with --connection-string.",
            ExitCode.Environment);
    }

    private static IEnumerable<string> DebianBinDirs()
    {
        const string root = "/usr/lib/postgresql";
        if (!Directory.Exists(root))
        {
            return [];
        }
        return Directory.EnumerateDirectories(root)
            .Select(dir => (Dir: dir, Version: double.TryParse(Path.GetFileName(dir), NumberStyles.Float,
                CultureInfo.InvariantCulture, out var v) ? v : -1))
            .Where(x => x.Version >= 0)
            .OrderByDescending(x => x.Version)
            .Select(x => Path.Combine(x.Dir, "bin"));
    }

    private static bool HasAll(string dir) => Programs.All(p => File.Exists(Path.Combine(dir, p)));
}
