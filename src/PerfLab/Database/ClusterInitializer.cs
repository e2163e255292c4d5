using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>
/// Creates a new cluster in an empty data folder: the folder (handed to the <c>postgres</c> user when running as root),
/// initdb, and perflab's settings. A failure removes every folder it made.
/// </summary>
internal sealed class ClusterInitializer(string dataDir, string sharedBuffers)
{
    private static readonly TimeSpan InitTimeout = TimeSpan.FromSeconds(120);

    public async Task InitializeAsync(PostgresBinaries binaries, string? runAs, CancellationToken ct)
    {
        if (Directory.Exists(dataDir) && Directory.EnumerateFileSystemEntries(dataDir).Any())
        {
            throw new PerfLabException(
                $"the data folder {dataDir} is not empty and holds no PostgreSQL cluster; empty it or choose another " +
                $"with --data-dir or {ManagedCluster.DataDirVariable}.", ExitCode.Environment);
        }

        // Remember the topmost folder this call creates, so a failure removes everything it made.
        var createdRoot = TopmostMissingFolder(dataDir);
        try
        {
            CreateWritableFolder();
            if (runAs is not null)
            {
                await HandOverToSystemUserAsync(ct);
            }
            await RunInitDbAsync(binaries, runAs, ct);
            await AppendSettingsAsync(ct);
        }
        catch
        {
            DeleteQuietly(createdRoot ?? dataDir, keepFolder: createdRoot is null);
            throw;
        }
    }

    private void CreateWritableFolder()
    {
        try
        {
            Directory.CreateDirectory(dataDir);
            var probe = Path.Combine(dataDir, ".perflab-write-test");
            File.WriteAllText(probe, "");
            File.Delete(probe);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new PerfLabException(
                $"cannot create or write the data folder {dataDir}: {ex.Message.TrimEnd('.')}. Choose another with --data-dir " +
                $"or {ManagedCluster.DataDirVariable}.", ExitCode.Environment, ex);
        }
    }

    private async Task RunInitDbAsync(PostgresBinaries binaries, string? runAs, CancellationToken ct)
    {
        var result = await ProcessRunner.RunAsync(binaries.InitDb,
            ["-D", dataDir, "-U", ManagedCluster.Superuser, "--auth=trust", "--encoding=UTF8", "--no-locale",
             "--no-instructions"], runAs, InitTimeout, ct);
        if (result.ExitCode != 0)
        {
            throw new PerfLabException($"initdb failed (exit {result.ExitCode}): {result.Output}",
                ExitCode.Environment);
        }
    }

    private Task AppendSettingsAsync(CancellationToken ct) =>
        File.AppendAllTextAsync(Path.Combine(dataDir, "postgresql.conf"), $"""

            # Added by perflab: a private benchmark cluster on loopback only; durability is traded for speed
            # because the data can always be seeded again.
            listen_addresses = '127.0.0.1'
            unix_socket_directories = ''
            max_connections = 300
            shared_buffers = {sharedBuffers}
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            wal_level = minimal
            max_wal_senders = 0

            """, ct);

    private async Task HandOverToSystemUserAsync(CancellationToken ct)
    {
        const string systemUser = ManagedCluster.SystemUser;
        var chown = await ProcessRunner.RunAsync("chown", [$"{systemUser}:", dataDir], null,
            TimeSpan.FromSeconds(30), ct);
        if (chown.ExitCode != 0)
        {
            throw new PerfLabException($"cannot hand the data folder {dataDir} to the {systemUser} user: {chown.Output}",
                ExitCode.Environment);
        }
        var probe = await ProcessRunner.RunAsync("test", ["-w", dataDir, "-a", "-x", dataDir], systemUser,
            TimeSpan.FromSeconds(30), ct);
        if (probe.ExitCode != 0)
        {
            throw new PerfLabException(
                $"the {systemUser} user (which runs PostgreSQL, since it refuses to run as root) cannot reach the data " +
                $"folder {dataDir}: a parent folder is not traversable by other users (as /root is). Choose a data " +
                $"folder under /var/tmp or /srv with --data-dir or {ManagedCluster.DataDirVariable}.", ExitCode.Environment);
        }
    }

    private static string? TopmostMissingFolder(string path)
    {
        string? topmost = null;
        for (var dir = path; !string.IsNullOrEmpty(dir) && !Directory.Exists(dir) && !File.Exists(dir);
             dir = Path.GetDirectoryName(dir))
        {
            topmost = dir;
        }
        return topmost;
    }

    private static void DeleteQuietly(string folder, bool keepFolder)
    {
        try
        {
            if (!Directory.Exists(folder))
            {
                return;
            }
            if (!keepFolder)
            {
                Directory.Delete(folder, recursive: true);
                return;
            }
            foreach (var entry in Directory.EnumerateFileSystemEntries(folder))
            {
                if (Directory.Exists(entry))
                {
                    Directory.Delete(entry, recursive: true);
                }
                else
                {
                    File.Delete(entry);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Best effort: the error being reported matters more than the cleanup.
        }
    }
}
