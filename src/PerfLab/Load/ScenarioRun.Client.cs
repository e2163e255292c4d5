using System.Net.Sockets;

namespace PerfLab.Load;

// The https:// and HTTP/2 path: the same requests and checks through HttpMessageInvoker, which allocates per request.
internal sealed partial class ScenarioRun
{
    private async ValueTask<(Outcome, int Status, long Bytes)> SendWithClientAsync(LoadWorker worker, int index)
    {
        var cts = worker.Timeout!;
        cts.CancelAfter(_timeout);
        Outcome failure;
        int status = 0;
        long bytes = 0;
        try
        {
            using var request = _template.Message(index, _version, _versionPolicy);
            using var response = await _client!.SendAsync(request, cts.Token).ConfigureAwait(false);
            status = (int)response.StatusCode;
            using var body = await response.Content.ReadAsStreamAsync(cts.Token).ConfigureAwait(false);
            failure = Outcome.Response;
            if (_jsonChecks is not null)
            {
                using var kept = new MemoryStream();
                await body.CopyToAsync(kept, cts.Token).ConfigureAwait(false);
                bytes = kept.Length;
                var passedStatus = !Recorders.ErrorStatus[Math.Min(status, ThreadRecorder.StatusSlots - 1)];
                failure = passedStatus && !Passes(kept.GetBuffer().AsSpan(0, (int)kept.Length)) ? Outcome.CheckFailed : Outcome.Response;
            }
            else
            {
                int read;
                while ((read = await body.ReadAsync(worker.Buffer, cts.Token).ConfigureAwait(false)) > 0)
                {
                    bytes += read;
                }
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or HttpRequestException or IOException or SocketException)
        {
            failure = Failure(ex, timedOut: ex is OperationCanceledException);
        }
        if (!cts.TryReset())
        {
            cts.Dispose();
            worker.Timeout = CancellationTokenSource.CreateLinkedTokenSource(Stop);
        }
        return (failure, status, bytes);
    }
}
