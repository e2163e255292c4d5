using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// A role's end of its ssh session (<see cref="RoleSession"/> is the controller's): lines out, one kind word first,
/// written whole and flushed at once; and the session's input, whose end means "stop".
/// </summary>
internal sealed class RoleLines(TextReader input, TextWriter output)
{
    public const string CacheVariable = "PERFLAB_HOST_CACHE";

    /// <summary>Where a host keeps PostgreSQL's data and the app's logs: $PERFLAB_HOST_CACHE, else perflab's cache.</summary>
    public static string Cache =>
        Environment.GetEnvironmentVariable(CacheVariable) is { Length: > 0 } own ? Path.GetFullPath(own) : PerfLabPaths.CacheRoot;

    public TextReader Input => input;

    /// <summary>
    /// A folder of <see cref="Cache"/> (logs/, traces/) the user alone may enter (0700), made so if it is not: what a run
    /// leaves there (an app's log, a trace) is nobody else's to read.
    /// </summary>
    public static string PrivateFolder(string name)
    {
        var folder = Directory.CreateDirectory(Path.Combine(Cache, name)).FullName;
        // Roles run on Linux hosts alone (docs/hosts.md).
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
        return folder;
    }

    public void Write(string kind, string text)
    {
        lock (output)
        {
            foreach (var line in text.Split('\n'))
            {
                output.WriteLine(kind + " " + line.TrimEnd('\r'));
            }
            output.Flush();
        }
    }

    /// <summary>The answer to <paramref name="ask"/>, one line (a line break in it would end the answer early).</summary>
    public void Answer(RoleAsk ask, string answer)
    {
        if (answer.Contains('\n', StringComparison.Ordinal))
        {
            throw new ArgumentException("an answer is one line", nameof(answer));
        }
        Write(ask.Kind, ask.Answering(answer));
    }

    /// <summary>Progress whose every line goes out as <c>say LINE</c>, which the controller shows.</summary>
    public IProgress<string> Say => new InlineProgress<string>(line => Write("say", line));

    /// <summary>
    /// Completes when the session's input ends (the controller closed it, the session dropped) or <paramref name="ct"/>
    /// fires.
    /// </summary>
    public Task EndOfInputAsync(CancellationToken ct) => EachLineAsync(_ => Task.CompletedTask, ct);

    /// <summary>
    /// Gives each line of the session's input to <paramref name="handle"/>, one after the other, until the input ends or
    /// <paramref name="ct"/> fires. A line <paramref name="handle"/> fails on ends it with a <see cref="PerfLabException"/>
    /// naming the line's kind and the error, for the role to say: it once ended the role without a word.
    /// </summary>
    public async Task EachLineAsync(Func<string, Task> handle, CancellationToken ct)
    {
        // Console.In reads synchronously even through ReadLineAsync: the reader gets a thread of its own.
        var end = Task.Run(async () =>
        {
            while (await ReadLineAsync().ConfigureAwait(false) is { } line)
            {
                try
                {
                    await handle(line).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is not OperationCanceledException || !ct.IsCancellationRequested)
                {
                    throw new PerfLabException($"stopped on an error while handling '{line.Split(' ')[0]}': "
                        + $"{ex.GetType().Name}: {ex.Message}".ReplaceLineEndings(" "), ExitCode.Failed, ex);
                }
            }
        }, CancellationToken.None);
        if (await Task.WhenAny(end, Task.Delay(Timeout.Infinite, ct)).ConfigureAwait(false) == end
            && end.Exception?.InnerException is PerfLabException failed)
        {
            throw failed;
        }
    }

    // The input's end, or its failure (the session's pipe gone), ends the lines.
    private async Task<string?> ReadLineAsync()
    {
        try
        {
            return await input.ReadLineAsync(CancellationToken.None).ConfigureAwait(false);
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>JSON for the lines between roles and the controller: one line each; a NaN counter value survives the trip.</summary>
    public static System.Text.Json.JsonSerializerOptions Json { get; } = new()
    {
        NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };
}
