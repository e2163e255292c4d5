using System.Data.Common;
using System.Globalization;
using Microsoft.Data.Sqlite;
using Npgsql;
using PerfLab.Common;

namespace PerfLab.History;

/// <summary>What to read back: every filter optional.</summary>
public sealed record HistoryQuery(string? Experiment = null, IReadOnlyList<string>? Metrics = null, string? Scenario = null,
    DateTimeOffset? Since = null);

/// <summary>
/// The one data access layer of the history, the same SQL on SQLite and PostgreSQL (<see cref="HistoryBackend"/>).
/// Opening checks what is there before writing anything: a file that is not SQLite, a database with tables not ours
/// and a schema newer than this perflab's are refused with the store left as it was; an older schema is migrated in
/// one transaction. Each add is one transaction, so a failure keeps every run stored before it.
/// </summary>
public sealed class HistoryStore : IAsyncDisposable
{
    private readonly DbConnection _connection;

    private HistoryStore(HistoryLocation location, DbConnection connection)
    {
        Location = location;
        _connection = connection;
    }

    public HistoryLocation Location { get; }

    /// <param name="create">Create the store (a new SQLite file, the tables) when there is none; else refuse.</param>
    public static async Task<HistoryStore> OpenAsync(HistoryLocation location, bool create, CancellationToken ct)
    {
        if (location.Missing)
        {
            if (!create)
            {
                throw new PerfLabException($"no history at '{location.Shown}': add runs first with 'perflab history add RESULTS...'.",
                    ExitCode.Usage);
            }
            var folder = Path.GetDirectoryName(location.Target)!;
            if (!Directory.Exists(folder))
            {
                throw new PerfLabException($"cannot create the history '{location.Shown}': folder '{folder}' does not exist.",
                    ExitCode.Usage);
            }
        }
        var connection = location.Connect(create);
        var store = new HistoryStore(location, connection);
        try
        {
            await store.Guard(async () =>
            {
                await connection.OpenAsync(ct);
                await store.PrepareAsync(create, ct);
                return 0;
            });
            return store;
        }
        catch
        {
            await store.DisposeAsync();
            throw;
        }
    }

    /// <summary>Adds a run and its points; false (and nothing written) when the run is already stored.</summary>
    public Task<bool> AddAsync(HistoryRun run, IReadOnlyList<HistoryPoint> points, CancellationToken ct) => Guard(async () =>
    {
        await using var transaction = await _connection.BeginTransactionAsync(ct);
        var id = await ScalarAsync(transaction, ct,
            """
            INSERT INTO history_runs (run_key, started_at, commit_id, machine, runtime, profile, noise, source, added_at)
            VALUES (@key, @started, @commit, @machine, @runtime, @profile, @noise, @source, @added)
            ON CONFLICT (run_key) DO NOTHING RETURNING id
            """,
            ("key", run.Key), ("started", Stamp(run.StartedAt)), ("commit", run.Commit), ("machine", run.Machine),
            ("runtime", run.Runtime), ("profile", run.Profile), ("noise", run.NoiseLine), ("source", run.Source),
            ("added", Stamp(DateTimeOffset.UtcNow)));
        if (id is null)
        {
            return false;
        }
        foreach (var p in points)
        {
            await ExecuteAsync(transaction, ct,
                """
                INSERT INTO history_points (run_id, experiment, variant, scenario, metric, median, low, high, samples, noise_floor, verdict)
                VALUES (@run, @experiment, @variant, @scenario, @metric, @median, @low, @high, @samples, @floor, @verdict)
                """,
                ("run", Convert.ToInt64(id, CultureInfo.InvariantCulture)), ("experiment", p.Experiment), ("variant", p.Variant),
                ("scenario", p.Scenario), ("metric", p.Metric), ("median", p.Median), ("low", p.Low), ("high", p.High),
                ("samples", p.Samples), ("floor", p.NoiseFloorPercent), ("verdict", p.Verdict));
        }
        await transaction.CommitAsync(ct);
        return true;
    });

    public Task<long> RunCountAsync(CancellationToken ct) => Guard(async () =>
        Convert.ToInt64(await ScalarAsync(null, ct, "SELECT COUNT(*) FROM history_runs"), CultureInfo.InvariantCulture));

    /// <summary>The points asked for, oldest run first (runs of one start time by the order they were added).</summary>
    public Task<IReadOnlyList<StoredPoint>> QueryAsync(HistoryQuery query, CancellationToken ct) => Guard(async () =>
    {
        var where = new List<string>();
        var parameters = new List<(string, object?)>();
        void Filter(string clause, string name, object value)
        {
            where.Add(clause);
            parameters.Add((name, value));
        }
        if (query.Experiment is { } experiment)
        {
            Filter("p.experiment = @experiment", "experiment", experiment);
        }
        if (query.Scenario is { } scenario)
        {
            Filter("p.scenario = @scenario", "scenario", scenario);
        }
        if (query.Since is { } since)
        {
            Filter("r.started_at >= @since", "since", Stamp(since));
        }
        var metrics = query.Metrics ?? [];
        for (var i = 0; i < metrics.Count; i++)
        {
            parameters.Add(($"metric{i}", metrics[i]));
        }
        if (metrics.Count > 0)
        {
            where.Add($"p.metric IN ({string.Join(", ", metrics.Select((_, i) => $"@metric{i}"))})");
        }
        await using var command = Command(null,
            "SELECT r.run_key, r.started_at, r.commit_id, r.machine, r.runtime, r.profile, r.noise, r.source, p.experiment, p.variant, "
            + "p.scenario, p.metric, p.median, p.low, p.high, p.samples, p.noise_floor, p.verdict, r.id "
            + "FROM history_points p JOIN history_runs r ON r.id = p.run_id"
            + (where.Count > 0 ? " WHERE " + string.Join(" AND ", where) : "")
            , [.. parameters]);
        await using var reader = await command.ExecuteReaderAsync(ct);
        var points = new List<(StoredPoint Point, long Id)>();
        while (await reader.ReadAsync(ct))
        {
            points.Add((Read(reader), Convert.ToInt64(reader.GetValue(18), CultureInfo.InvariantCulture)));
        }
        // Ordered here, not in SQL: PostgreSQL's collation and SQLite's bytes would sort the names differently.
        return (IReadOnlyList<StoredPoint>)[.. points.OrderBy(p => p.Point.Run.StartedAt).ThenBy(p => p.Id)
            .ThenBy(p => p.Point.Point.Experiment, StringComparer.Ordinal).ThenBy(p => p.Point.Point.Variant, StringComparer.Ordinal)
            .ThenBy(p => p.Point.Point.Scenario, StringComparer.Ordinal).ThenBy(p => p.Point.Point.Metric, StringComparer.Ordinal)
            .Select(p => p.Point)];
    });

    private static StoredPoint Read(DbDataReader r)
    {
        string? Text(int i) => r.IsDBNull(i) ? null : r.GetString(i);
        double? Number(int i) => r.IsDBNull(i) ? null : Convert.ToDouble(r.GetValue(i), CultureInfo.InvariantCulture);
        var run = new HistoryRun(r.GetString(0), DateTimeOffset.Parse(r.GetString(1), CultureInfo.InvariantCulture),
            r.GetString(2), r.GetString(3), r.GetString(4), r.GetString(5), Text(6), r.GetString(7));
        var point = new HistoryPoint(r.GetString(8), r.GetString(9), r.GetString(10), r.GetString(11), Number(12)!.Value,
            Number(13), Number(14), Convert.ToInt32(r.GetValue(15), CultureInfo.InvariantCulture), Number(16), Text(17));
        return new StoredPoint(run, point);
    }

    /// <summary>Refuses what is not a history of ours or is newer than this perflab; creates or migrates the tables.</summary>
    private async Task PrepareAsync(bool create, CancellationToken ct)
    {
        var tables = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        await using (var command = Command(null, Location.Backend.TablesSql))
        await using (var reader = await command.ExecuteReaderAsync(ct))
        {
            while (await reader.ReadAsync(ct))
            {
                tables.Add(reader.GetString(0));
            }
        }
        var version = 0;
        if (tables.Contains("history_meta"))
        {
            var format = (string?)await ScalarAsync(null, ct, "SELECT value FROM history_meta WHERE name = 'format'");
            var text = (string?)await ScalarAsync(null, ct, "SELECT value FROM history_meta WHERE name = 'schema_version'");
            if (format != HistorySchema.Format || !int.TryParse(text, CultureInfo.InvariantCulture, out version))
            {
                throw Foreign($"its history_meta table is not perflab's (format '{format}')");
            }
        }
        else if (Location.Backend.OwnsWholeDatabase && tables.Count > 0)
        {
            throw Foreign($"it holds other tables ({string.Join(", ", tables.Order(StringComparer.Ordinal).Take(5))})");
        }
        if (version > HistorySchema.Current)
        {
            throw new PerfLabException(
                $"the history '{Location.Shown}' has schema version {version}, written by a newer perflab; this one reads versions up to "
                + $"{HistorySchema.Current}. Use that perflab (or a newer one) for it; nothing was changed.", ExitCode.Usage);
        }
        if (version < HistorySchema.Current && !create && version == 0)
        {
            throw new PerfLabException($"'{Location.Shown}' holds no perflab history yet: add runs with 'perflab history add'.",
                ExitCode.Usage);
        }
        await MigrateAsync(version, ct);
    }

    private async Task MigrateAsync(int version, CancellationToken ct)
    {
        if (version == HistorySchema.Current)
        {
            return;
        }
        await using var transaction = await _connection.BeginTransactionAsync(ct);
        if (version == 0)
        {
            await ExecuteAsync(transaction, ct, HistorySchema.MetaTable);
            await ExecuteAsync(transaction, ct, "INSERT INTO history_meta (name, value) VALUES ('format', @format)",
                ("format", HistorySchema.Format));
            await ExecuteAsync(transaction, ct, "INSERT INTO history_meta (name, value) VALUES ('schema_version', '0')");
        }
        foreach (var statement in HistorySchema.Migrations.Skip(version).SelectMany(m => m))
        {
            await ExecuteAsync(transaction, ct, statement.Replace("{identity}", Location.Backend.IdentityColumn, StringComparison.Ordinal));
        }
        await ExecuteAsync(transaction, ct, "UPDATE history_meta SET value = @version WHERE name = 'schema_version'",
            ("version", HistorySchema.Current.ToString(CultureInfo.InvariantCulture)));
        await transaction.CommitAsync(ct);
    }

    private PerfLabException Foreign(string why) => new(
        $"'{Location.Shown}' is not a perflab history: {why}. It was left as it is; name another --history.", ExitCode.Usage);

    /// <summary>Every database failure as the user's problem it is, named with the store; never a stack trace.</summary>
    private async Task<T> Guard<T>(Func<Task<T>> work)
    {
        try
        {
            return await work();
        }
        catch (SqliteException ex) when (ex.SqliteErrorCode is 26 or 11)
        {
            throw new PerfLabException($"'{Location.Shown}' is not a perflab history: SQLite reads it as corrupt or not a database "
                + $"({ex.Message.TrimEnd('.')}). It was left as it is; name another --history, or restore this file from a copy.",
                ExitCode.Usage, ex);
        }
        catch (SqliteException ex)
        {
            throw new PerfLabException($"the history '{Location.Shown}' could not be used: {ex.Message}", ExitCode.Environment, ex);
        }
        catch (PostgresException ex)
        {
            throw new PerfLabException($"the history on {Location.Shown} could not be used: {ex.MessageText} ({ex.SqlState}).",
                ex.SqlState.StartsWith("28", StringComparison.Ordinal) || ex.SqlState == "3D000"
                    ? ExitCode.Unreachable
                    : ExitCode.Environment,
                ex);
        }
        catch (NpgsqlException ex)
        {
            throw new PerfLabException($"cannot reach the history server {Location.Shown}: {ex.Message}. Is the server running, "
                + "and does the connection string name it? Nothing was changed.", ExitCode.Unreachable, ex);
        }
    }

    private DbCommand Command(DbTransaction? transaction, string sql, params (string Name, object? Value)[] parameters)
    {
        var command = _connection.CreateCommand();
        command.CommandText = sql;
        command.Transaction = transaction;
        foreach (var (name, value) in parameters)
        {
            var parameter = command.CreateParameter();
            parameter.ParameterName = name;
            parameter.Value = value ?? DBNull.Value;
            command.Parameters.Add(parameter);
        }
        return command;
    }

    private async Task ExecuteAsync(DbTransaction? transaction, CancellationToken ct, string sql, params (string, object?)[] parameters)
    {
        await using var command = Command(transaction, sql, parameters);
        await command.ExecuteNonQueryAsync(ct);
    }

    private async Task<object?> ScalarAsync(DbTransaction? transaction, CancellationToken ct, string sql,
        params (string, object?)[] parameters)
    {
        await using var command = Command(transaction, sql, parameters);
        var value = await command.ExecuteScalarAsync(ct);
        return value is DBNull ? null : value;
    }

    private static string Stamp(DateTimeOffset time) =>
        time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture);

    public ValueTask DisposeAsync() => _connection.DisposeAsync();
}
