using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Npgsql;
using PerfLab.Common;
using PerfLab.Network;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Databases;

/// <summary>
/// A network between one run's SUT and PostgreSQL: the latency proxy in front of the database, with the SUT's
/// connection string pointed at it, and the round trip measured before the run as the SUT will see it: trivial
/// queries (SELECT 1) on one connection through the proxy, and the same directly for comparison. Disposing it stops
/// the proxy and drops its connections, whatever state the run ended in.
/// </summary>
public sealed class DatabasePath : IAsyncDisposable
{
    /// <summary>Timed queries each way; the median is recorded.</summary>
    public const int Queries = 20;

    private readonly LatencyProxy _proxy;

    private DatabasePath(LatencyProxy proxy, string connectionString, DatabasePathStats stats)
    {
        _proxy = proxy;
        ConnectionString = connectionString;
        Stats = stats;
    }

    /// <summary>The connection string that reaches the database through the proxy.</summary>
    public string ConnectionString { get; }

    public DatabasePathStats Stats { get; }

    /// <summary>Bytes the proxy has forwarded both ways since it started (the measuring queries' included).</summary>
    public long BytesForwarded => _proxy.BytesForwarded;

    public static async Task<DatabasePath> OpenAsync(string connectionString, double rttMs, CancellationToken ct)
    {
        var target = await TargetOf(connectionString, ct);
        var proxy = await LatencyProxy.StartAsync(target, TimeSpan.FromMilliseconds(rttMs / 2), ct);
        try
        {
            var proxied = new NpgsqlConnectionStringBuilder(connectionString) { Host = "127.0.0.1", Port = proxy.Port }.ConnectionString;
            var direct = await MedianQueryMsAsync(connectionString, Queries, ct);
            var through = await MedianQueryMsAsync(proxied, Queries, ct);
            return new DatabasePath(proxy, proxied, new DatabasePathStats(rttMs, through, direct, Queries));
        }
        catch
        {
            await proxy.DisposeAsync();
            throw;
        }
    }

    /// <summary>
    /// Fails with a usage error when the database cannot have a TCP
    /// proxy put in front of it (a Unix socket, several hosts).
    /// </summary>
    public static void CheckTarget(string connectionString)
    {
        var host = new NpgsqlConnectionStringBuilder(connectionString).Host ?? "localhost";
        if (host.StartsWith('/') || host.Contains(','))
        {
            throw new PerfLabException(
                $"a database RTT needs one PostgreSQL server reached over TCP, but the connection string's Host is '{host}'; use "
                    + $"Host=address;Port=port, or run experiments without database: {{ rtt }}.",
                ExitCode.Usage);
        }
    }

    /// <summary>The database's TCP endpoint.</summary>
    private static async Task<IPEndPoint> TargetOf(string connectionString, CancellationToken ct)
    {
        CheckTarget(connectionString);
        var builder = new NpgsqlConnectionStringBuilder(connectionString);
        var host = builder.Host ?? "localhost";
        if (!IPAddress.TryParse(host, out var address))
        {
            try
            {
                var addresses = await Dns.GetHostAddressesAsync(host, ct);
                address = addresses.FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork) ?? addresses.First();
            }
            catch (Exception ex) when (ex is SocketException or InvalidOperationException)
            {
                throw new PerfLabException($"cannot resolve the database host '{host}' to put the latency proxy in front of "
                    + $"it: {ex.Message}", ExitCode.Unreachable, ex);
            }
        }
        return new IPEndPoint(address, builder.Port);
    }

    /// <summary>The median time of <paramref name="count"/> SELECT 1 round trips (<see cref="QueryMsAsync"/>).</summary>
    public static async Task<double> MedianQueryMsAsync(string connectionString, int count, CancellationToken ct) =>
        Descriptive.Median(await QueryMsAsync(connectionString, count, ct));

    /// <summary>
    /// The time of each of <paramref name="count"/> SELECT 1 round trips on one unpooled connection, after one
    /// untimed. Blocking calls on a thread of their own, as <see cref="RoundTripProbe"/> does: the timed path then holds
    /// no thread-pool hop, which on a loaded machine would add the machine's milliseconds to the path's.
    /// </summary>
    public static Task<double[]> QueryMsAsync(string connectionString, int count, CancellationToken ct) =>
        Task.Factory.StartNew(() =>
        {
            var builder = new NpgsqlConnectionStringBuilder(connectionString) { Pooling = false, Timeout = 10 };
            using var connection = new NpgsqlConnection(builder.ConnectionString);
            using var registration = ct.Register(connection.Dispose);
            try
            {
                connection.Open();
                using var command = new NpgsqlCommand("SELECT 1", connection);
                command.ExecuteScalar();
                var samples = new double[count];
                for (var i = 0; i < count; i++)
                {
                    var start = Stopwatch.GetTimestamp();
                    command.ExecuteScalar();
                    samples[i] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                }
                return samples;
            }
            catch (Exception ex) when (ex is NpgsqlException or ObjectDisposedException or InvalidOperationException)
            {
                ct.ThrowIfCancellationRequested();
                throw new PerfLabException($"the database did not answer a trivial query through the latency path: {ex.Message}",
                    ExitCode.Failed, ex);
            }
        }, ct, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    public ValueTask DisposeAsync() => _proxy.DisposeAsync();
}
