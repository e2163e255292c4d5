using System.Net;
using Npgsql;
using PerfLab.Database;
using PerfLab.Testing;

namespace PerfLab.Tests.Database;

/// <summary>
/// How the db role tells the backends serving the app host: by the client address in each backend's process title,
/// known titles first, then a real cluster's backend found by the address it was reached from, its CPU clock read.
/// </summary>
public sealed class BackendTitleTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    [Theory]
    [InlineData("postgres: perflab adventureworks 10.0.0.2(45678) idle", "10.0.0.2")]
    [InlineData("postgres: perflab adventureworks 10.0.0.2(45678) SELECT", "10.0.0.2")]
    [InlineData("postgres: main: perflab adventureworks 192.168.1.20(5432) idle in transaction", "192.168.1.20")]
    [InlineData("postgres: perflab adventureworks ::1(5432) idle", "::1")]
    [InlineData("postgres: perflab adventureworks [::1](5432) idle", "::1")]
    [InlineData("postgres: perflab adventureworks fd00::2(41000) idle", "fd00::2")]
    [InlineData("postgres: perflab adventureworks ::ffff:10.0.0.2(41000) idle", "10.0.0.2")]
    public void ClientOf_BackendTitle_ItsClientAddress(string title, string address) =>
        Assert.Equal(IPAddress.Parse(address), PostgresBackends.ClientOf(title));

    [Theory]
    [InlineData("postgres: perflab adventureworks [local] idle")]
    [InlineData("postgres: checkpointer ")]
    [InlineData("postgres: autovacuum launcher ")]
    [InlineData("postgres: perflab adventureworks app-host(5432) idle")]
    [InlineData("")]
    public void ClientOf_NoNetworkClient_Null(string title) => Assert.Null(PostgresBackends.ClientOf(title));

    [Fact]
    public void Parse_FormattedClocks_SameClocks()
    {
        var clocks = new Dictionary<int, long> { [4242] = 1_234_567_890_123, [17] = 0 };
        Assert.Equal(clocks, BackendsCpu.Parse(BackendsCpu.Format(clocks)));
        Assert.Empty(BackendsCpu.Parse("")!);
        Assert.Null(BackendsCpu.Parse("4242=lots"));
    }

    [Fact]
    public async Task ServingClient_RealBackendReachedOverLoopback_FoundByItsAddressAndItsCpuRead()
    {
        var connectionString = await postgres.CreateDatabaseAsync();
        var server = await PostgresBackends.FindAsync(connectionString, CancellationToken.None)
            ?? throw new Xunit.Sdk.XunitException("the test cluster's postmaster was not found");
        await using var connection = await PostgresConnections.OpenAsync(connectionString, CancellationToken.None);
        var backend = Convert.ToInt32(await new NpgsqlCommand("SELECT pg_backend_pid()", connection).ExecuteScalarAsync());
        var host = IPAddress.Parse(new NpgsqlConnectionStringBuilder(connectionString).Host!);
        var before = BackendsCpu.Of(PostgresBackends.ServingClient(server.PostmasterPid, host));
        await new NpgsqlCommand("SELECT count(*) FROM generate_series(1, 1000000)", connection).ExecuteScalarAsync();
        var after = BackendsCpu.Of(PostgresBackends.ServingClient(server.PostmasterPid, host));

        Assert.Contains(backend, after.Keys);
        // A million rows counted: tens of milliseconds of the backend's CPU, charged between the two reads.
        Assert.True(after[backend] - before[backend] > 10_000_000, $"{(after[backend] - before[backend]) / 1e6:0.0} ms");
        // An address no client used: no backend, not even the postmaster's own workers.
        Assert.Empty(PostgresBackends.ServingClient(server.PostmasterPid, IPAddress.Parse("10.255.255.254")));
    }
}
