using System.Globalization;
using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>The state of perflab's own PostgreSQL cluster.</summary>
public sealed record ClusterStatus(
    string DataDir,
    bool Initialized,
    bool Running,
    int? Pid,
    int? Port,
    string? MajorVersion)
{
    /// <summary>The connection string of the <c>adventureworks</c> database, when the port is known.</summary>
    public string? ConnectionString => Port is { } port ? ManagedCluster.ConnectionStringFor(port) : null;
}

/// <summary>
/// The cluster opened beyond loopback to one client: listening on <paramref name="ListenAddress"/> too, and pg_hba
/// accepting <paramref name="ClientAddress"/> alone (the app's host, when PostgreSQL runs on a host of its own), as
/// <see cref="AppLogin.User"/> with its password (SCRAM) to the lab's database: never the superuser, who connects over
/// loopback on the cluster's own host only.
/// </summary>
public sealed record NetworkAccess(System.Net.IPAddress ListenAddress, System.Net.IPAddress ClientAddress);

/// <summary>The result of <see cref="ManagedCluster.StartAsync"/>.</summary>
public sealed record ClusterStartResult(ClusterStatus Status, bool WasRunning, bool Initialized);

/// <summary>
/// perflab's private PostgreSQL cluster: initdb into its own data folder, loopback only, a free port remembered in
/// perflab.json, started and stopped with pg_ctl. As root, the programs run as the <c>postgres</c> system user.
/// </summary>
public sealed class ManagedCluster
{
    public const string DataDirVariable = PerfLabSettings.DataDir;
    public const string Superuser = "perflab";
    internal const string SystemUser = "postgres";
    private const string StateFile = "perflab.json";
    private const string LogFile = "server.log";
    private static readonly TimeSpan PgCtlTimeout = TimeSpan.FromSeconds(90);

    private readonly string? _binDir;
    private readonly string _sharedBuffers;

    /// <param name="dataDir">The data folder; null for PERFLAB_DATA_DIR or the default.</param>
    /// <param name="binDir">The PostgreSQL bin folder; null for PERFLAB_PG_BINDIR or the search.</param>
    /// <param name="sharedBuffers">shared_buffers for a new cluster (tests use less than the lab's 256MB).</param>
    public ManagedCluster(string? dataDir = null, string? binDir = null, string sharedBuffers = "256MB")
    {
        DataDir = Path.GetFullPath(dataDir ?? DefaultDataDir());
        _binDir = binDir;
        _sharedBuffers = sharedBuffers;
    }

    public string DataDir { get; }

    /// <summary>
    /// PERFLAB_DATA_DIR, else $XDG_CACHE_HOME/perflab/postgres or ~/.cache/perflab/postgres; as root
    /// /var/tmp/perflab/postgres, because the postgres user cannot traverse /root.
    /// </summary>
    public static string DefaultDataDir()
    {
        if (Environment.GetEnvironmentVariable(DataDirVariable) is { Length: > 0 } fromEnv)
        {
            return fromEnv;
        }
        return Path.Combine(PerfLabPaths.CacheRoot, "postgres");
    }

    public static string ConnectionStringFor(int port, string database = PostgresConnections.DefaultDatabase) =>
        string.Create(CultureInfo.InvariantCulture,
            $"Host=127.0.0.1;Port={port};Username={Superuser};Database={database}");

    /// <summary>Reads the state from the data folder (postmaster.pid, perflab.json); starts no process.</summary>
    public ClusterStatus GetStatus()
    {
        var initialized = File.Exists(Path.Combine(DataDir, "PG_VERSION"));
        var version = initialized ? File.ReadAllText(Path.Combine(DataDir, "PG_VERSION")).Trim() : null;
        var (pid, runningPort) = ReadPostmasterPid();
        var running = pid is { } p && IsPostgresProcess(p);
        return new ClusterStatus(DataDir, initialized, running, running ? pid : null,
            running ? runningPort : ReadRememberedPort(), version);
    }

    /// <summary>Initializes the cluster when needed and starts it unless it runs already.</summary>
    /// <param name="port">The port to listen on; null for the remembered one, or a free one at first start.</param>
    /// <param name="access">Beyond loopback: one more address to listen on and the one client accepted there; null: loopback only.</param>
    public async Task<ClusterStartResult> StartAsync(int? port, CancellationToken ct, NetworkAccess? access = null)
    {
        var binaries = PostgresBinaries.Find(_binDir);
        var status = GetStatus();
        if (status.Running)
        {
            return new ClusterStartResult(status, WasRunning: true, Initialized: false);
        }

        var runAs = RunAsUser();
        var remembered = ReadRememberedPort();
        if ((port ?? remembered) is { } asked && !LoopbackPorts.IsFree(asked))
        {
            var source = port is not null ? "given with --port"
                : $"remembered from the first start in {Path.Combine(DataDir, StateFile)}";
            throw new PerfLabException(
                $"port {asked} on 127.0.0.1 ({source}) is in use by another program; stop it or pass --port with a " +
                "free port.", ExitCode.Environment);
        }
        var chosen = port ?? remembered ?? LoopbackPorts.PickFree();

        var initialized = false;
        if (!status.Initialized)
        {
            await new ClusterInitializer(DataDir, _sharedBuffers).InitializeAsync(binaries, runAs, ct);
            initialized = true;
        }
        WriteRememberedPort(chosen);
        WriteClientAccess(access);

        // IP addresses only (parsed, never text from a file): pg_ctl hands -o to a shell.
        var listen = access is null ? "" : $" -c listen_addresses=127.0.0.1,{access.ListenAddress}";
        var result = await ProcessRunner.RunAsync(binaries.PgCtl,
            ["-D", DataDir, "-l", Path.Combine(DataDir, LogFile), "-w", "-t", "60",
             "-o", string.Create(CultureInfo.InvariantCulture, $"-p {chosen}{listen}"), "start"],
            runAs, PgCtlTimeout, ct);
        if (result.ExitCode != 0)
        {
            throw new PerfLabException(
                $"PostgreSQL did not start (pg_ctl exit {result.ExitCode}): {result.Output}\n{TailOfLog()}",
                ExitCode.Environment);
        }
        return new ClusterStartResult(GetStatus(), WasRunning: false, initialized);
    }

    /// <summary>Stops the cluster (fast shutdown); false when it was not running.</summary>
    public Task<bool> StopAsync(CancellationToken ct) => StopAsync(immediate: false, ct);

    /// <summary>Stops the cluster; <paramref name="immediate"/> skips the shutdown checkpoint (for throw-away
    /// clusters: the next start would need crash recovery).</summary>
    public async Task<bool> StopAsync(bool immediate, CancellationToken ct)
    {
        if (!GetStatus().Running)
        {
            return false;
        }
        var binaries = PostgresBinaries.Find(_binDir);
        var result = await ProcessRunner.RunAsync(binaries.PgCtl,
            ["-D", DataDir, "-w", "-t", "60", "-m", immediate ? "immediate" : "fast", "stop"],
            RunAsUser(), PgCtlTimeout, ct);
        if (result.ExitCode != 0 && GetStatus().Running)
        {
            throw new PerfLabException($"PostgreSQL did not stop (pg_ctl exit {result.ExitCode}): {result.Output}",
                ExitCode.Environment);
        }
        return true;
    }

    private static string? RunAsUser()
    {
        if (!ProcessRunner.IsRoot)
        {
            return null;
        }
        var hasUser = File.Exists("/etc/passwd")
            && File.ReadLines("/etc/passwd").Any(line => line.StartsWith(SystemUser + ":", StringComparison.Ordinal));
        return hasUser
            ? SystemUser
            : throw new PerfLabException(
                "PostgreSQL refuses to run as root, and there is no 'postgres' system user to run it as. Run perflab " +
                "as a normal user, create the user (`adduser --system --group postgres`, or install the postgresql " +
                "package, which creates it), or use an external server with --connection-string.",
                ExitCode.Environment);
    }

    private (int? Pid, int? Port) ReadPostmasterPid()
    {
        // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
        var path = Path.Combine(DataDir, "postmaster.pid");
        try
        {
            var lines = File.ReadAllLines(path);
            int? pid = lines.Length > 0 && int.TryParse(lines[0], CultureInfo.InvariantCulture, out var p) ? p : null;
            int? port = lines.Length > 3 && int.TryParse(lines[3], CultureInfo.InvariantCulture, out var q) ? q : null;
            return (pid, port);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return (null, null);
        }
    }

    // A postmaster.pid left by a crash may name a pid that another program has since been given.
    internal static bool IsPostgresProcess(int pid)
    {
        try
        {
            var comm = File.ReadAllText(string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/comm")).Trim();
            return comm is "postgres" or "postmaster";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private int? ReadRememberedPort()
    {
        try
        {
            using var doc = JsonDocument.Parse(File.ReadAllText(Path.Combine(DataDir, StateFile)));
            return doc.RootElement.TryGetProperty("port", out var port) && port.TryGetInt32(out var value)
                ? value
                : null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or JsonException)
        {
            return null;
        }
    }

    private void WriteRememberedPort(int port) =>
        File.WriteAllText(Path.Combine(DataDir, StateFile),
            string.Create(CultureInfo.InvariantCulture, $"{{ \"port\": {port} }}\n"));

    private const string AccessMark = "# perflab: the app's host";

    /// <summary>
    /// pg_hba.conf with this start's one remote client (the app's login, SCRAM, the lab's database only) and no earlier
    /// start's. initdb's own lines (trust) name loopback alone: the superuser is never accepted from elsewhere.
    /// </summary>
    private void WriteClientAccess(NetworkAccess? access)
    {
        var path = Path.Combine(DataDir, "pg_hba.conf");
        var lines = File.ReadAllLines(path).Where(l => !l.EndsWith(AccessMark, StringComparison.Ordinal)).ToList();
        if (access is not null)
        {
            var bits = access.ClientAddress.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? 128 : 32;
            const string database = PostgresConnections.DefaultDatabase;
            lines.Add(string.Create(CultureInfo.InvariantCulture,
                $"host {database} {AppLogin.User} {access.ClientAddress}/{bits} scram-sha-256 {AccessMark}"));
        }
        // Written in place: the file keeps its owner (the postgres user) and mode.
        File.WriteAllLines(path, lines);
    }

    private string TailOfLog()
    {
        try
        {
            var lines = File.ReadAllLines(Path.Combine(DataDir, LogFile));
            return "server log (last lines):\n" + string.Join('\n', lines.TakeLast(10));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return "";
        }
    }
}
