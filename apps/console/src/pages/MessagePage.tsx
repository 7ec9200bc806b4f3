import { Card, Code, Group, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { MessageStatus, MessageTimeline } from '@smsgw/contracts';
import { Failure } from '../parts';
import { api } from '../api';
import { useLoggedIn } from '../session';
import { StateBadge } from './MessagesPage';

function Facts({ rows }: { rows: [string, string | number | null | undefined][] }) {
  return (
    <Table aria-label="Message">
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th scope="row" w={180}>
              {k}
            </Table.Th>
            <Table.Td>{v ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** An operator's view: the message and its whole story, in order. */
function OperatorMessage({ id }: { id: string }) {
  const story = useQuery({
    queryKey: ['story', id],
    queryFn: () => api<MessageTimeline>('GET', `/admin/v1/messages/${encodeURIComponent(id)}`),
  });
  if (story.error) return <Failure error={story.error} />;
  if (!story.data) return <Text>Loading…</Text>;
  const { message: m, events } = story.data.data;
  return (
    <Stack>
      <Group>
        <StateBadge state={m.state} />
        <Text>
          to {m.to} from {m.from ?? '—'}, account {m.account}
        </Text>
      </Group>
      <Facts
        rows={[
          ['Id', m.id],
          ['Text', m.contentMasked ? '(hidden: needs messages:content)' : m.content],
          ['Cost', m.cost],
          ['Route', m.route],
          ['Connector', m.connector],
          ['SMSC id', m.smscId],
          ['Error', m.error],
        ]}
      />
      <Card withBorder component="section" aria-labelledby="story">
        <Title order={2} size="h4" id="story" mb="sm">
          Its story
        </Title>
        <Timeline bulletSize={14} lineWidth={2}>
          {events.map((e, i) => (
            <Timeline.Item key={i} title={e.event}>
              <Text size="sm">{e.text}</Text>
              <Text size="xs" c="dimmed">
                {e.at ?? 'time not kept'}
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
      </Card>
    </Stack>
  );
}

/** A customer's view: the message's status and receipt as /secure/messages/{id} tells it. */
function CustomerMessage({ id }: { id: string }) {
  const status = useQuery({
    queryKey: ['status', id],
    queryFn: () => api<MessageStatus>('GET', `/secure/messages/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.data.state === 'delivered' ? false : 3000),
  });
  if (status.error) return <Failure error={status.error} />;
  if (!status.data) return <Text>Loading…</Text>;
  const m = status.data.data;
  return (
    <Stack>
      <Group>
        <StateBadge state={m.state} />
        <Text>to {m.to}</Text>
      </Group>
      <Facts
        rows={[
          ['Id', m.id],
          ['Outcome', m.outcome],
          ['Cost', m.cost],
          ['Charged', m.charged ? 'yes' : 'no (refunded)'],
          ['SMSC id', m.smscId],
          ['Error', m.error],
          ['Accepted', m.createdAt],
          ['Submitted', m.submittedAt],
          ['Last change', m.updatedAt],
        ]}
      />
    </Stack>
  );
}

export function MessagePage({ id }: { id: string }) {
  const session = useLoggedIn();
  return (
    <Stack>
      <Title order={1} size="h2">
        Message <Code>{id}</Code>
      </Title>
      {session.kind === 'operator' ? <OperatorMessage id={id} /> : <CustomerMessage id={id} />}
    </Stack>
  );
}
