using System.Data.Common;
using Microsoft.Data.Sqlite;
using Npgsql;
using PerfLab.Common;

namespace PerfLab.History;

/// <summary>
/// Where a history lives: a SQLite file (the default, one person or one CI cache) or a PostgreSQL server (a team's
/// shared history). Both hold the same schema through the same SQL (<see cref="HistoryStore"/>); a backend says only
/// how to connect, how an identity column is spelled, how to list its tables, and what its failures mean to the user.
/// </summary>
public sealed record HistoryBackend(string Name, string IdentityColumn, string TablesSql, bool OwnsWholeDatabase)
{
    /// <summary>A file of its own: any table in it that is not ours makes it a foreign file, refused.</summary>
    public static readonly HistoryBackend Sqlite = new("SQLite", "INTEGER PRIMARY KEY AUTOINCREMENT",
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", OwnsWholeDatabase: true);

    /// <summary>A server's database may hold other tables; ours are the history_ ones of the connection's schema.</summary>
    public static readonly HistoryBackend Postgres = new("PostgreSQL", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()", OwnsWholeDatabase: false);
}

/// <summary>One history named on the command line: a backend and where it is.</summary>
public sealed record HistoryLocation(HistoryBackend Backend, string Target, string Shown)
{
    public const string DefaultFileName = "history.db";

    /// <summary>
    /// `--history` as given: a PostgreSQL connection string ("Host=...;Database=...") or URL (postgresql://...), else a
    /// SQLite file; none means history.db in perflab's cache folder.
    /// </summary>
    public static HistoryLocation Parse(string? value)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            var path = Path.Combine(PerfLabPaths.CacheRoot, DefaultFileName);
            return new HistoryLocation(HistoryBackend.Sqlite, path, path);
        }
        if (value.StartsWith("postgres://", StringComparison.OrdinalIgnoreCase)
            || value.StartsWith("postgresql://", StringComparison.OrdinalIgnoreCase))
        {
            return Server(FromUrl(value));
        }
        if (value.Contains("Host=", StringComparison.OrdinalIgnoreCase) && value.Contains('='))
        {
            return Server(value);
        }
        var full = Path.GetFullPath(value);
        return new HistoryLocation(HistoryBackend.Sqlite, full, value);
    }

    /// <summary>True when there is nothing there yet (a file not created): a read finds no history, an add creates one.</summary>
    public bool Missing => Backend == HistoryBackend.Sqlite && !File.Exists(Target);

    public DbConnection Connect(bool create) => Backend == HistoryBackend.Sqlite
        ? new SqliteConnection(new SqliteConnectionStringBuilder
        {
            DataSource = Target,
            Mode = create ? SqliteOpenMode.ReadWriteCreate : SqliteOpenMode.ReadWrite,
            Pooling = false,
        }.ToString())
        : new NpgsqlConnection(Target);

    private static HistoryLocation Server(string connectionString)
    {
        NpgsqlConnectionStringBuilder builder;
        try
        {
            builder = new NpgsqlConnectionStringBuilder(connectionString);
        }
        catch (ArgumentException ex)
        {
            throw new PerfLabException($"--history: the PostgreSQL connection string is not valid: {ex.Message}", ExitCode.Usage);
        }
        // Shown in messages without its password.
        return new HistoryLocation(HistoryBackend.Postgres, connectionString,
            $"PostgreSQL {builder.Host}:{builder.Port}/{builder.Database}");
    }

    private static string FromUrl(string url)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || string.IsNullOrEmpty(uri.Host))
        {
            throw new PerfLabException($"--history: '{url}' is not a PostgreSQL URL (postgresql://user:password@host:port/database).",
                ExitCode.Usage);
        }
        var builder = new NpgsqlConnectionStringBuilder { Host = uri.Host, Port = uri.IsDefaultPort || uri.Port < 0 ? 5432 : uri.Port };
        var user = uri.UserInfo.Split(':', 2);
        if (user[0].Length > 0)
        {
            builder.Username = Uri.UnescapeDataString(user[0]);
        }
        if (user.Length > 1)
        {
            builder.Password = Uri.UnescapeDataString(user[1]);
        }
        builder.Database = Uri.UnescapeDataString(uri.AbsolutePath.TrimStart('/'));
        return builder.ToString();
    }
}
