import { Alert, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { MoRouteMatch, RouteMatch } from '@smsgw/contracts';
import { api, query } from '../api';
import { Failure } from '../parts';

/** "Which route would this number take?" for a message sent. */
export function MtRouteTester() {
  const [to, setTo] = useState('');
  const [account, setAccount] = useState('');
  const [from, setFrom] = useState('');
  const [tags, setTags] = useState('');
  const ask = useMutation({
    mutationFn: () =>
      api<RouteMatch>(
        'GET',
        `/admin/v1/routes/match${query({ to, account, from: from || undefined, tags: tags || undefined })}`,
      ),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate();
  };
  const answer = ask.data?.data;
  return (
    <Card withBorder component="section" aria-labelledby="mt-tester">
      <form onSubmit={submit}>
        <Stack>
          <Title order={3} size="h4" id="mt-tester">
            Which MT route would this number take?
          </Title>
          <Group grow align="end">
            <TextInput
              label="To"
              required
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
            />
            <TextInput
              label="Account"
              required
              value={account}
              onChange={(e) => setAccount(e.currentTarget.value)}
            />
            <TextInput
              label="Sender"
              value={from}
              onChange={(e) => setFrom(e.currentTarget.value)}
            />
            <TextInput label="Tags" value={tags} onChange={(e) => setTags(e.currentTarget.value)} />
            <Button type="submit" loading={ask.isPending}>
              Find the route
            </Button>
          </Group>
          <Failure error={ask.error} title="Not answered" />
          {answer && (
            <Alert
              role="status"
              color={answer.route || answer.no_routes ? 'green' : 'red'}
              title="Answer"
            >
              {answer.route ? (
                <Text>
                  Route <strong>{answer.route.name}</strong> (position {answer.route.position},{' '}
                  {answer.route.kind}) through{' '}
                  {answer.route.connectors.map((c) => c.connector).join(', ')}
                  {answer.route.price !== null && `, at ${answer.route.price} a part`}.
                </Text>
              ) : answer.no_routes ? (
                <Text>No routes are configured: it goes to the default connector.</Text>
              ) : (
                <Text>No route takes it: the message would be refused (NO_ROUTE).</Text>
              )}
              {answer.unusable.length > 0 && (
                <Text size="sm">
                  Routes taking no message:{' '}
                  {answer.unusable.map((u) => `${u.name} (${u.reason})`).join('; ')}
                </Text>
              )}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** "Which route would take this message?" for a message received. */
export function MoRouteTester() {
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [connector, setConnector] = useState('');
  const ask = useMutation({
    mutationFn: () =>
      api<MoRouteMatch>(
        'GET',
        `/admin/v1/mo-routes/match${query({ to, text: text || undefined, connector: connector || undefined })}`,
      ),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate();
  };
  const answer = ask.data?.data;
  return (
    <Card withBorder component="section" aria-labelledby="mo-tester">
      <form onSubmit={submit}>
        <Stack>
          <Title order={3} size="h4" id="mo-tester">
            Which MO route would take this message?
          </Title>
          <Group grow align="end">
            <TextInput
              label="Sent to"
              required
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
            />
            <TextInput label="Text" value={text} onChange={(e) => setText(e.currentTarget.value)} />
            <TextInput
              label="Arrives through"
              placeholder="default"
              value={connector}
              onChange={(e) => setConnector(e.currentTarget.value)}
            />
            <Button type="submit" loading={ask.isPending}>
              Find the MO route
            </Button>
          </Group>
          <Failure error={ask.error} title="Not answered" />
          {answer && (
            <Alert role="status" color={answer.route ? 'green' : 'red'} title="Answer">
              {answer.route ? (
                <Text>
                  MO route <strong>{answer.route.name}</strong>, for account {answer.route.account}
                  {answer.keyword !== null && ` (keyword ${answer.keyword})`}.
                </Text>
              ) : (
                <Text>No MO route takes it: it would be kept as unrouted.</Text>
              )}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}
