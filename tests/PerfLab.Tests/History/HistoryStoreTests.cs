using Microsoft.Data.Sqlite;
using PerfLab.Common;
using PerfLab.History;

namespace PerfLab.Tests.History;

/// <summary>The SQLite history: duplicates, and what it refuses (corrupt, foreign, newer) without losing what it holds.</summary>
public sealed class HistoryStoreTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-history-");

    public void Dispose() => _dir.Delete(recursive: true);

    private HistoryLocation File(string name) => HistoryLocation.Parse(Path.Combine(_dir.FullName, name));

    internal static async Task<int> AddAllAsync(HistoryStore store, IEnumerable<PerfLab.Results.RunResults> runs)
    {
        var added = 0;
        foreach (var results in runs)
        {
            var (run, points) = HistoryIngest.From(results, "synthetic");
            added += await store.AddAsync(run, points, CancellationToken.None) ? 1 : 0;
        }
        return added;
    }

    [Fact]
    public async Task Add_SameRunsTwice_StoredOnce_AndReadBackAsIngested()
    {
        var runs = HistoryFixtures.Runs(4, stepAt: 3, step: 0.1, floor: _ => 3);
        await using var store = await HistoryStore.OpenAsync(File("h.db"), create: true, CancellationToken.None);

        Assert.Equal(4, await AddAllAsync(store, runs));
        Assert.Equal(0, await AddAllAsync(store, runs));

        Assert.Equal(4, await store.RunCountAsync(CancellationToken.None));
        var read = await store.QueryAsync(new HistoryQuery(Metrics: ["cpu-per-request"]), CancellationToken.None);
        var expected = HistoryFixtures.Stored(runs).Where(p => p.Point.Metric == "cpu-per-request").ToList();
        Assert.Equal(Sorted(expected), Sorted(read));
        Assert.Equal(expected.Select(p => (p.Run.Commit, p.Run.StartedAt)), read.Select(p => (p.Run.Commit, p.Run.StartedAt)));
        var since = await store.QueryAsync(new HistoryQuery(Since: HistoryFixtures.Start.AddDays(3)), CancellationToken.None);
        Assert.Equal([3, 4], since.Select(p => p.Run.StartedAt).Distinct().Select(t => (t - HistoryFixtures.Start).Days));
    }

    [Fact]
    public async Task Open_CorruptFile_RefusedWithItsName_AndLeftAsItWas()
    {
        var path = Path.Combine(_dir.FullName, "corrupt.db");
        var bytes = new byte[4096];
        new Random(1).NextBytes(bytes);
        await System.IO.File.WriteAllBytesAsync(path, bytes);

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => HistoryStore.OpenAsync(File("corrupt.db"), true, CancellationToken.None));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("is not a perflab history", ex.Message, StringComparison.Ordinal);
        Assert.Contains("corrupt.db", ex.Message, StringComparison.Ordinal);
        Assert.Equal(bytes, await System.IO.File.ReadAllBytesAsync(path));
    }

    [Fact]
    public async Task Open_SqliteFileOfAnotherProgram_Refused_ItsTablesKept()
    {
        var path = Path.Combine(_dir.FullName, "other.db");
        await using (var other = new SqliteConnection($"Data Source={path};Pooling=False"))
        {
            await other.OpenAsync();
            await using var command = other.CreateCommand();
            command.CommandText = "CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (1)";
            await command.ExecuteNonQueryAsync();
        }

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => HistoryStore.OpenAsync(File("other.db"), true, CancellationToken.None));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("it holds other tables (invoices)", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Open_SchemaOfANewerPerflab_RefusedAndUntouched()
    {
        var location = File("newer.db");
        await using (var store = await HistoryStore.OpenAsync(location, create: true, CancellationToken.None))
        {
            await AddAllAsync(store, HistoryFixtures.Runs(2, 99, 0, _ => 3));
        }
        await SetVersionAsync(location.Target, HistorySchema.Current + 1);
        var before = await System.IO.File.ReadAllBytesAsync(location.Target);

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => HistoryStore.OpenAsync(location, true, CancellationToken.None));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains($"schema version {HistorySchema.Current + 1}, written by a newer perflab", ex.Message, StringComparison.Ordinal);
        Assert.Equal(before, await System.IO.File.ReadAllBytesAsync(location.Target));
    }

    [Fact]
    public async Task Open_MissingFileToRead_SaysToAddRunsFirst()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => HistoryStore.OpenAsync(File("none.db"), false, CancellationToken.None));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("no history at", ex.Message, StringComparison.Ordinal);
        Assert.False(System.IO.File.Exists(Path.Combine(_dir.FullName, "none.db")));
    }

    [Theory]
    [InlineData("postgresql://me:secret@db.example:5433/perf", "PostgreSQL db.example:5433/perf")]
    [InlineData("Host=db.example;Database=perf;Username=me;Password=secret", "PostgreSQL db.example:5432/perf")]
    public void Parse_ServerGiven_PostgresShownWithoutItsPassword(string value, string shown)
    {
        var location = HistoryLocation.Parse(value);

        Assert.Equal((HistoryBackend.Postgres, shown), (location.Backend, location.Shown));
        Assert.Contains("secret", location.Target, StringComparison.Ordinal);
    }

    internal static IEnumerable<HistoryPoint> Sorted(IEnumerable<StoredPoint> points) => points.Select(p => p.Point)
        .OrderBy(p => $"{p.Experiment}|{p.Variant}|{p.Scenario}|{p.Metric}", StringComparer.Ordinal).ThenBy(p => p.Median);

    private static async Task SetVersionAsync(string path, int version)
    {
        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = $"UPDATE history_meta SET value = '{version}' WHERE name = 'schema_version'";
        await command.ExecuteNonQueryAsync();
    }
}
