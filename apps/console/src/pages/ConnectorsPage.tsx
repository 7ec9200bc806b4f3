import { Alert, Badge, Button, Group, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ConnectorView } from '@smsgw/contracts';
import { api } from '../api';

const STATE_COLORS = { up: 'green', down: 'red', stopped: 'gray' } as const;

/** The confirmation before a connector is stopped or started: it changes live traffic. */
function ConfirmChange({
  change,
  onClose,
}: {
  change: { name: string; action: 'stop' | 'start' } | undefined;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const apply = useMutation({
    mutationFn: (c: { name: string; action: 'stop' | 'start' }) =>
      api<{ data: ConnectorView }>(
        'POST',
        `/admin/v1/connectors/${encodeURIComponent(c.name)}/${c.action}`,
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['connectors'] });
      onClose();
    },
  });
  return (
    <Modal
      opened={change !== undefined}
      onClose={onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={
        change ? `${change.action === 'stop' ? 'Stop' : 'Start'} connector ${change.name}?` : ''
      }
    >
      <Stack>
        <Text>
          {change?.action === 'stop'
            ? 'Its sessions unbind and its messages wait (or go to another connector of their route) until it is started again.'
            : 'Its dispatchers bind to the SMSC again and send what waits for it.'}
        </Text>
        {apply.error && (
          <Alert color="red" role="alert">
            {apply.error.message}
          </Alert>
        )}
        <Group justify="end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color={change?.action === 'stop' ? 'red' : undefined}
            loading={apply.isPending}
            onClick={() => change && apply.mutate(change)}
          >
            {change?.action === 'stop' ? 'Stop it' : 'Start it'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The connectors with their state, sessions, window and rate, refreshed live; stop and start. */
export function ConnectorsPage() {
  const [change, setChange] = useState<{ name: string; action: 'stop' | 'start' }>();
  const list = useQuery({
    queryKey: ['connectors'],
    queryFn: () => api<{ data: ConnectorView[] }>('GET', '/admin/v1/connectors'),
    refetchInterval: 3000,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Connectors
      </Title>
      {list.error && (
        <Alert color="red" role="alert">
          {list.error.message}
        </Alert>
      )}
      <Table striped aria-label="Connectors">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Sessions / binds</Table.Th>
            <Table.Th>Window in use</Table.Th>
            <Table.Th>Waiting</Table.Th>
            <Table.Th>Rate /s</Table.Th>
            <Table.Th>Last error</Table.Th>
            <Table.Th>Action</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.map((c) => (
            <Table.Tr key={c.name}>
              <Table.Td>{c.name}</Table.Td>
              <Table.Td>
                <Badge color={STATE_COLORS[c.state]} variant="light">
                  {c.state}
                </Badge>
              </Table.Td>
              <Table.Td>
                {c.sessions} / {c.binds}
              </Table.Td>
              <Table.Td>{c.windowInUse}</Table.Td>
              <Table.Td>{c.waiting}</Table.Td>
              <Table.Td>{c.rate}</Table.Td>
              <Table.Td>{c.lastError ?? '—'}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="default"
                  onClick={() =>
                    setChange({
                      name: c.name,
                      action: c.desiredState === 'stopped' ? 'start' : 'stop',
                    })
                  }
                >
                  {c.desiredState === 'stopped' ? 'Start' : 'Stop'} {c.name}
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {list.data?.data.length === 0 && <Text>No connector is configured.</Text>}
      <ConfirmChange change={change} onClose={() => setChange(undefined)} />
    </Stack>
  );
}
