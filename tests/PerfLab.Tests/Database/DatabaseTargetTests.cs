using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Testing;

namespace PerfLab.Tests.Database;

public sealed class DatabaseTargetTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public async Task ResolveAsync_SeededExternalDatabase_ReturnsItAsGiven()
    {
        var db = await postgres.CreateDatabaseAsync();

        Assert.Equal(db, await DatabaseTarget.ResolveAsync(db, null, default));
    }

    [Fact]
    public async Task ResolveAsync_UnseededExternalDatabase_TellsToSeed()
    {
        var db = await postgres.NewEmptyDatabaseConnectionStringAsync();

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => DatabaseTarget.ResolveAsync(db, null, default));

        Assert.Contains("not seeded", ex.Message);
        Assert.Contains("perflab db seed", ex.Message);
    }

    [Fact]
    public async Task ResolveAsync_ManagedClusterNotRunning_TellsToStartAndSeed()
    {
        using var folder = new TempFolder();

        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            DatabaseTarget.ResolveAsync(null, Path.Combine(folder.Path, "pg"), default));

        Assert.Equal(ExitCode.Unreachable, ex.ExitCode);
        Assert.Contains("perflab db start && perflab db seed", ex.Message);
    }
}
