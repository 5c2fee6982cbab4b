// Realtime's channel cap as the unmodified supabase-js meets it: the channel past
// max_channels_per_client reports CHANNEL_ERROR with Realtime's reason, and the others keep
// working. Run by tests/realtime/test_limits.py against a server whose cap is
// REALTIME_MAX_CHANNELS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { realtimeClient, subscribed, waitFor } from './support.mjs';

const MAX = Number(process.env.REALTIME_MAX_CHANNELS);
const suffix = crypto.randomBytes(4).toString('hex');

/** The status and error the subscribe callback reports first. */
function outcome(channel) {
  return new Promise((resolve) => {
    channel.subscribe((status, err) => {
      if (status !== 'CLOSED') resolve({ status, err });
    });
  });
}

test(`the channel past ${MAX} on one connection is refused with Realtime's reason`, async () => {
  assert.ok(MAX > 0, 'REALTIME_MAX_CHANNELS is not set');
  const supabase = await realtimeClient();
  const sender = await realtimeClient();
  try {
    const received = [];
    for (let i = 0; i < MAX; i++) {
      await subscribed(supabase.channel(`cap-${i}-${suffix}`)
        .on('broadcast', { event: 'ping' }, (message) => received.push(message.payload)));
    }

    const over = supabase.channel(`cap-over-${suffix}`);
    const { status, err } = await outcome(over);
    supabase.removeChannel(over); // else realtime-js rejoins it with backoff
    assert.equal(status, 'CHANNEL_ERROR');
    assert.equal(err.message, 'ChannelRateLimitReached: Too many channels');

    // The connection and its channels live on.
    const out = await subscribed(sender.channel(`cap-0-${suffix}`));
    assert.equal(await out.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } }), 'ok');
    await waitFor(() => received.find((p) => p.n === 1), 'the broadcast on a channel under the cap');
  } finally {
    await sender.removeAllChannels();
    await supabase.removeAllChannels();
    sender.realtime.disconnect();
    supabase.realtime.disconnect();
  }
});
