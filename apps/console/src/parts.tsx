import { Alert, Button, Card, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api } from './api';

/** What the gateway answered when it refused a request, said where the request was made. */
export function Failure({ error, title }: { error: Error | null | undefined; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {error.message}
    </Alert>
  );
}

/** One figure with its label (a balance, a count). */
export function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} component="div">
        {value ?? '…'}
      </Text>
    </Card>
  );
}

/**
 * The confirmation before a change that matters (stopping a connector, disabling an account,
 * revoking a token): what it does, Cancel, and the button that does it.
 */
export function Confirm(props: {
  opened: boolean;
  title: string;
  what: string;
  confirm: string;
  danger?: boolean;
  busy: boolean;
  error: Error | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={props.title}
    >
      <Stack>
        <Text>{props.what}</Text>
        <Failure error={props.error} />
        <Group justify="end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button
            color={props.danger === true ? 'red' : undefined}
            loading={props.busy}
            onClick={props.onConfirm}
          >
            {props.confirm}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/**
 * The pages of a list read through the API's cursor: the cursor of the page shown (undefined for
 * the first), a step to the next page, and back.
 */
export function useCursorPages() {
  const [pages, setPages] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: pages[pages.length - 1],
    hasPrevious: pages.length > 1,
    next: (cursor: string | null | undefined) => {
      if (cursor) setPages([...pages, cursor]);
    },
    previous: () => setPages(pages.slice(0, -1)),
    reset: () => setPages([undefined]),
  };
}

/** The buttons that page a list: newer (back) and older (the next cursor, while there is one). */
export function Pager({
  pages,
  nextCursor,
  labels = ['Newer', 'Older'],
}: {
  pages: ReturnType<typeof useCursorPages>;
  nextCursor: string | null | undefined;
  labels?: [string, string];
}) {
  return (
    <Group>
      {pages.hasPrevious && (
        <Button variant="default" onClick={pages.previous}>
          {labels[0]}
        </Button>
      )}
      {nextCursor && (
        <Button variant="default" onClick={() => pages.next(nextCursor)}>
          {labels[1]}
        </Button>
      )}
    </Group>
  );
}

/** What FormModal needs of the mutation that saves its form. */
interface SavingMutation {
  mutate: () => void;
  reset: () => void;
  error: Error | null;
  isPending: boolean;
}

/**
 * A form in a dialog (add or edit a connector, a route): its fields, what the gateway refused, Cancel
 * and the button that saves. Closed, it forgets the last answer, so it opens again without it.
 */
export function FormModal(props: {
  opened: boolean;
  title: string;
  save: SavingMutation;
  submit: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const close = () => {
    props.save.reset();
    props.onClose();
  };
  return (
    <Modal
      opened={props.opened}
      onClose={close}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={props.title}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.save.mutate();
        }}
      >
        <Stack>
          {props.children}
          <Failure error={props.save.error} title="Not saved" />
          <Group justify="end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={props.save.isPending}>
              {props.submit}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A row's Edit and Delete buttons, named after the row's thing. */
export function EditDelete(props: { name: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="default" onClick={props.onEdit}>
        Edit {props.name}
      </Button>
      <Button size="xs" variant="default" onClick={props.onDelete}>
        Delete {props.name}
      </Button>
    </Group>
  );
}

/**
 * Deleting one named thing (a connector, a route) after a confirmation that says what follows;
 * `name` is the thing's while the question is open. The list under `refresh` is read again after.
 */
export function ConfirmDelete(props: {
  thing: string;
  name: string | undefined;
  what: string;
  path: (name: string) => string;
  refresh: readonly unknown[];
  onClose: () => void;
}) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: (name: string) => api<unknown>('DELETE', props.path(name)),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: props.refresh });
      props.onClose();
    },
  });
  return (
    <Confirm
      opened={props.name !== undefined}
      title={`Delete ${props.thing} ${props.name ?? ''}?`}
      what={props.what}
      confirm="Delete it"
      danger
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => props.name !== undefined && remove.mutate(props.name)}
      onClose={() => {
        remove.reset();
        props.onClose();
      }}
    />
  );
}
