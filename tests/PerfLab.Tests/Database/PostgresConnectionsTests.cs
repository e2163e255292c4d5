using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Testing;

namespace PerfLab.Tests.Database;

public sealed class PostgresConnectionsTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Fact]
    public void Normalize_NoDatabaseNoTimeout_DefaultsToAdventureWorksUnpooledFiveSeconds()
    {
        var builder = PostgresConnections.Normalize("Host=127.0.0.1;Port=5432;Username=perflab");

        Assert.Equal("adventureworks", builder.Database);
        Assert.False(builder.Pooling);
        Assert.Equal(5, builder.Timeout);
    }

    [Fact]
    public void Normalize_ExplicitTimeoutAndDatabase_KeepsThem()
    {
        var builder = PostgresConnections.Normalize("Host=127.0.0.1;Database=shop;Timeout=9;Pooling=true");

        Assert.Equal("shop", builder.Database);
        Assert.Equal(9, builder.Timeout);
        Assert.False(builder.Pooling);
    }

    [Fact]
    public void Normalize_InvalidConnectionString_ThrowsUsage()
    {
        var ex = Assert.Throws<PerfLabException>(() => PostgresConnections.Normalize("Hots=127.0.0.1"));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
    }

    [Fact]
    public async Task OpenAsync_ClosedPort_ThrowsUnreachableNamingTheServer()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            PostgresConnections.OpenAsync("Host=127.0.0.1;Port=1;Username=perflab;Timeout=3", default));

        Assert.Equal(ExitCode.Unreachable, ex.ExitCode);
        Assert.StartsWith("cannot connect to PostgreSQL at 127.0.0.1:1 (database adventureworks)", ex.Message);
    }

    [Fact]
    public async Task AcceptsConnectionsAsync_RunningServerThenClosedPort_TrueThenFalse()
    {
        var db = await postgres.CreateDatabaseAsync();

        Assert.True(await PostgresConnections.AcceptsConnectionsAsync(db, default));
        Assert.False(await PostgresConnections.AcceptsConnectionsAsync("Host=127.0.0.1;Port=1;Username=perflab", default));
    }
}
