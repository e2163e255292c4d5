using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>What one reset did and found.</summary>
/// <param name="CheckpointLsnBefore">The last checkpoint's position in the WAL before the reset (pg_control_checkpoint).</param>
/// <param name="CheckpointLsnAfter">The same after: beyond the first when the reset's CHECKPOINT was done.</param>
/// <param name="WarmedBy">"pg_prewarm", or "a full read of each table" where the server lacks it.</param>
/// <param name="Pages">Pages of the lab's tables and their indexes (main fork).</param>
/// <param name="CachedPages">How many of those pages shared buffers held after the warm; null without pg_buffercache.</param>
public sealed record LabResetResult(long CheckpointLsnBefore, long CheckpointLsnAfter, string WarmedBy, long Pages, long? CachedPages)
{
    public bool Checkpointed => CheckpointLsnAfter > CheckpointLsnBefore;

    /// <summary>The share of the lab's pages in shared buffers, in percent; null when not measured.</summary>
    public double? CachedPercent => CachedPages is { } cached && Pages > 0 ? 100.0 * cached / Pages : null;
}

/// <summary>
/// The lab's database brought to the same state before a block: a CHECKPOINT, so that no block inherits the previous
/// one's dirty buffers and no timed checkpoint falls due in it for their sake, then the lab's tables and their indexes
/// read into shared buffers the same way each time (pg_prewarm), so every block starts from the same warm cache
/// whatever ran before it (another experiment, a restart of the cluster, another invocation). Settled first by
/// <see cref="LabDatabase.SettleAsync"/>, on the lab's own cluster only.
/// </summary>
public static class LabDatabaseReset
{
    public const string ByPrewarm = "pg_prewarm";
    public const string ByReading = "a full read of each table";

    public static async Task<LabResetResult> ResetAsync(string connectionString, LabDatabaseSettings settings, CancellationToken ct)
    {
        try
        {
            await using var connection = await PostgresConnections.OpenAsync(connectionString, ct);
            var before = await CheckpointLsnAsync(connection, ct);
            await PostgresConnections.ExecuteAsync(connection, null, "CHECKPOINT", ct);
            var after = await CheckpointLsnAsync(connection, ct);
            var relations = await RelationsAsync(connection, ct);
            if (settings.Prewarm)
            {
                await LabDatabase.ScalarAsync(connection, "SELECT sum(pg_prewarm(to_regclass(r))) FROM unnest($1::text[]) r", ct,
                    relations.ToArray());
            }
            else
            {
                await DatabasePreparation.WarmAsync(connectionString, ct);
            }
            var pages = Convert.ToInt64(await LabDatabase.ScalarAsync(connection,
                "SELECT coalesce(sum(pg_relation_size(to_regclass(r)) / current_setting('block_size')::bigint), 0) " +
                "FROM unnest($1::text[]) r", ct, relations.ToArray()), System.Globalization.CultureInfo.InvariantCulture);
            long? cached = settings.BufferCache ? await CachedPagesAsync(connection, relations, ct) : null;
            return new LabResetResult(before, after, settings.Prewarm ? ByPrewarm : ByReading, pages, cached);
        }
        catch (NpgsqlException ex) when (!ct.IsCancellationRequested)
        {
            throw new PerfLabException($"could not bring the lab's database to its state before the block: {ex.Message}",
                ExitCode.Environment, ex);
        }
    }

    /// <summary>Where the last checkpoint record lies in the WAL, as a byte position.</summary>
    public static async Task<long> CheckpointLsnAsync(NpgsqlConnection connection, CancellationToken ct) =>
        Convert.ToInt64(await LabDatabase.ScalarAsync(connection,
            "SELECT (checkpoint_lsn - '0/0'::pg_lsn)::bigint FROM pg_control_checkpoint()", ct),
            System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The lab's tables and every index on them, as regclass text.</summary>
    public static async Task<IReadOnlyList<string>> RelationsAsync(NpgsqlConnection connection, CancellationToken ct)
    {
        await using var command = new NpgsqlCommand(
            "SELECT t FROM unnest($1::text[]) t UNION ALL " +
            "SELECT i.indexrelid::regclass::text FROM pg_index i WHERE i.indrelid IN (SELECT to_regclass(t) FROM unnest($1::text[]) t)",
            connection);
        command.Parameters.Add(new NpgsqlParameter { Value = LabDatabase.TableNames.ToArray() });
        var relations = new List<string>();
        await using var reader = await command.ExecuteReaderAsync(ct);
        while (await reader.ReadAsync(ct))
        {
            relations.Add(reader.GetString(0));
        }
        return relations;
    }

    /// <summary>How many pages of <paramref name="relations"/> (main fork) shared buffers hold now, from pg_buffercache.</summary>
    public static async Task<long> CachedPagesAsync(NpgsqlConnection connection, IReadOnlyList<string> relations, CancellationToken ct) =>
        Convert.ToInt64(await LabDatabase.ScalarAsync(connection,
            "SELECT count(*) FROM pg_buffercache b WHERE b.relforknumber = 0 " +
            "AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) " +
            "AND b.relfilenode IN (SELECT pg_relation_filenode(to_regclass(r)) FROM unnest($1::text[]) r)", ct, relations.ToArray()),
            System.Globalization.CultureInfo.InvariantCulture);
}
