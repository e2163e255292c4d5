using System.Globalization;
using Npgsql;
using PerfLab.Database;

namespace PerfLab.Testing;

/// <summary>
/// Real PostgreSQL for tests, started through the same code as <c>perflab db</c>. One private cluster per test
/// process (temp folder, free port, started on first use, stopped at process exit) holds a template database seeded
/// once; <see cref="CreateDatabaseAsync"/> clones it so each test class gets its own fresh database.
/// Use as <c>IClassFixture&lt;PostgresFixture&gt;</c>. A test that must stop the server (the 503 path) takes its own
/// cluster from <see cref="StartIsolatedAsync"/>, so stopping it disturbs no other class.
/// </summary>
public sealed class PostgresFixture : IAsyncLifetime
{
    private const string TemplateDatabase = "perflab_template";
    private static readonly SemaphoreSlim CloneLock = new(1, 1);
    private static readonly Lazy<Task<TestCluster>> Shared = new(() => TestCluster.StartSharedAsync());
    private readonly List<string> _databases = [];

    /// <summary>Port of the shared cluster (after <see cref="InitializeAsync"/>).</summary>
    public int Port { get; private set; }

    public async Task InitializeAsync() => Port = (await Shared.Value).Port;

    /// <summary>A fresh database cloned from the seeded template; returns its connection string.</summary>
    public async Task<string> CreateDatabaseAsync()
    {
        var cluster = await Shared.Value;
        var name = NewDatabaseName();
        // CREATE DATABASE ... TEMPLATE fails while anything else touches the template, including another clone.
        await CloneLock.WaitAsync();
        try
        {
            await ExecuteAsync(cluster.Port, $"CREATE DATABASE \"{name}\" TEMPLATE {TemplateDatabase}");
        }
        finally
        {
            CloneLock.Release();
        }
        lock (_databases)
        {
            _databases.Add(name);
        }
        return ManagedCluster.ConnectionStringFor(cluster.Port, name);
    }

    /// <summary>The connection string of a database that does not exist yet (for tests of seeding itself).</summary>
    public async Task<string> NewEmptyDatabaseConnectionStringAsync()
    {
        var cluster = await Shared.Value;
        var name = NewDatabaseName();
        lock (_databases)
        {
            _databases.Add(name);
        }
        return ManagedCluster.ConnectionStringFor(cluster.Port, name);
    }

    /// <summary>A private, seeded cluster of the test's own, which it may stop and start at will.</summary>
    /// <param name="sharedBuffers">Its shared_buffers: more than the default 32MB holds all of the seeded tables at once.</param>
    public static Task<IsolatedPostgres> StartIsolatedAsync(string sharedBuffers = DefaultSharedBuffers) =>
        IsolatedPostgres.CreateAsync(sharedBuffers);

    internal const string DefaultSharedBuffers = "32MB";

    public async Task DisposeAsync()
    {
        if (!Shared.IsValueCreated || !Shared.Value.IsCompletedSuccessfully)
        {
            return;
        }
        var port = Shared.Value.Result.Port;
        string[] names;
        lock (_databases)
        {
            names = [.. _databases];
        }
        foreach (var name in names)
        {
            try
            {
                await ExecuteAsync(port, $"DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
            }
            catch (NpgsqlException)
            {
                // The cluster goes away at process exit anyway.
            }
        }
    }

    private static string NewDatabaseName() => "t_" + Guid.NewGuid().ToString("N")[..16];

    internal static async Task ExecuteAsync(int port, string sql)
    {
        // A loaded test machine can take a while to accept a connection: keep Npgsql's 15 s, not perflab's 5 s.
        var builder = PostgresConnections.Normalize(ManagedCluster.ConnectionStringFor(port, "postgres"));
        builder.Timeout = 15;
        builder.CommandTimeout = 120;
        await using var connection = await PostgresConnections.OpenAsync(builder, CancellationToken.None);
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    internal sealed class TestCluster(ManagedCluster cluster, int port)
    {
        public ManagedCluster Cluster { get; } = cluster;
        public int Port { get; } = port;

        public static async Task<TestCluster> StartSharedAsync()
        {
            var cluster = await TestFolders.StartClusterAsync("shared");
            await Seeder.SeedAsync(ManagedCluster.ConnectionStringFor(cluster.Port, TemplateDatabase), null,
                CancellationToken.None);
            return cluster;
        }
    }

    // Every folder and cluster this process made lives under one root folder. A watchdog process, detached from the
    // test host, waits for the test host to exit (normally or killed: a test host is given too little time at exit to
    // stop PostgreSQL itself), then shuts down every cluster under the root and deletes it. Folders left by an earlier
    // run whose watchdog could not finish are cleaned up by the next run.
    internal static class TestFolders
    {
        private const string Prefix = "perflab-tests-";
        private const string OwnerFile = "owner.pid";
        private static readonly Lazy<string> Root = new(CreateRoot);

        // $1: pid of the test host, $2: the root folder. SIGQUIT is PostgreSQL's immediate shutdown.
        private const string WatchdogScript = """
            exec </dev/null >/dev/null 2>&1
            while kill -0 "$1" 2>/dev/null; do sleep 1; done
            for pidfile in "$2"/*/postmaster.pid; do
                [ -f "$pidfile" ] || continue
                pid=$(head -n 1 "$pidfile")
                [ "$(cat /proc/$pid/comm 2>/dev/null)" = postgres ] || continue
                kill -QUIT "$pid"
                i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
            done
            rm -rf "$2"
            """;

        public static async Task<TestCluster> StartClusterAsync(string name, string sharedBuffers = DefaultSharedBuffers)
        {
            var dataDir = Path.Combine(Root.Value, name + "-" + Guid.NewGuid().ToString("N")[..8]);
            var cluster = new ManagedCluster(dataDir, sharedBuffers: sharedBuffers);
            var started = await cluster.StartAsync(port: null, CancellationToken.None);
            return new TestCluster(cluster, started.Status.Port!.Value);
        }

        private static string CreateRoot()
        {
            if (OperatingSystem.IsWindows())
            {
                throw new PlatformNotSupportedException("perflab's managed PostgreSQL runs on Linux.");
            }
            CleanUpAbandoned();
            var pid = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
            var root = Path.Combine(Path.GetTempPath(), Prefix + pid + "-" + Guid.NewGuid().ToString("N")[..8]);
            // Traversable by others: as root, PostgreSQL runs as the postgres user and must reach the data folders.
            Directory.CreateDirectory(root, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
                | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
            File.WriteAllText(Path.Combine(root, OwnerFile), pid);

            var watchdog = new System.Diagnostics.ProcessStartInfo("setsid")
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (var arg in new[] { "-f", "sh", "-c", WatchdogScript, "perflab-test-watchdog", pid, root })
            {
                watchdog.ArgumentList.Add(arg);
            }
            using (var process = System.Diagnostics.Process.Start(watchdog)!)
            {
                process.WaitForExit(10_000);
            }
            return root;
        }

        private static void CleanUpAbandoned()
        {
            foreach (var folder in Directory.EnumerateDirectories(Path.GetTempPath(), Prefix + "*"))
            {
                try
                {
                    var owner = File.ReadAllText(Path.Combine(folder, OwnerFile)).Trim();
                    if (Directory.Exists("/proc/" + owner))
                    {
                        continue;
                    }
                    foreach (var dataDir in Directory.EnumerateDirectories(folder))
                    {
                        new ManagedCluster(dataDir).StopAsync(immediate: true, CancellationToken.None).GetAwaiter()
                            .GetResult();
                    }
                    DeleteQuietly(folder);
                }
                catch (Exception)
                {
                    // Not ours, or its watchdog is removing it right now.
                }
            }
        }

        public static void DeleteQuietly(string folder)
        {
            try
            {
                Directory.Delete(folder, recursive: true);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Best effort.
            }
        }
    }
}

/// <summary>A private, seeded PostgreSQL cluster owned by one test, which may stop and restart it.</summary>
public sealed class IsolatedPostgres : IAsyncDisposable
{
    private readonly ManagedCluster _cluster;

    private IsolatedPostgres(ManagedCluster cluster, int port)
    {
        _cluster = cluster;
        Port = port;
    }

    public int Port { get; }

    /// <summary>The seeded <c>adventureworks</c> database.</summary>
    public string ConnectionString => ManagedCluster.ConnectionStringFor(Port);

    internal static async Task<IsolatedPostgres> CreateAsync(string sharedBuffers)
    {
        var started = await PostgresFixture.TestFolders.StartClusterAsync("isolated", sharedBuffers);
        var isolated = new IsolatedPostgres(started.Cluster, started.Port);
        await Seeder.SeedAsync(isolated.ConnectionString, null, CancellationToken.None);
        return isolated;
    }

    /// <summary>Stops the server (fast shutdown: open connections are cut, as in an outage).</summary>
    public Task StopAsync() => _cluster.StopAsync(CancellationToken.None);

    /// <summary>Starts it again on the same port.</summary>
    public Task StartAsync() => _cluster.StartAsync(Port, CancellationToken.None);

    public async ValueTask DisposeAsync()
    {
        await _cluster.StopAsync(CancellationToken.None);
        PostgresFixture.TestFolders.DeleteQuietly(_cluster.DataDir);
    }
}
